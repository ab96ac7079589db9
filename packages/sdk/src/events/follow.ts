// Following the events feed: poll with the last cursor, yield what came, wait, repeat, until the
// caller's signal aborts. While a page says `hasMore` the next is asked for at once; otherwise the
// follower waits `intervalMs`. It stays inside the rate limit the way a long walk should: a page
// whose answer says no request is left in the window (X-RateLimit-Remaining: 0) makes the next
// request wait for the window's reset, and a 429 that outlasts the sender's own retries (each
// waits Retry-After) is waited out here instead of ending a loop meant to run for days.
import { RateLimitError } from '../errors.ts';
import type { ListEventsQuery } from '../generated/api.ts';
import type { RequestOptions } from '../resources/operation.ts';
import { retryAfterMs } from '../transport/backoff.ts';
import { sleep } from '../transport/timing.ts';
import type { ChangeEvent } from '../types.ts';
import type { EventFeedPage } from './walk.ts';

export interface FollowOptions extends Omit<RequestOptions, 'signal'> {
  /** a cursor stored from an earlier walk or follower (with the same filters): continue after it */
  after?: string;
  /** start after the last event committed now, skipping the feed's history (costs one request per 500 events kept) */
  fromNow?: boolean;
  types?: ListEventsQuery['types'];
  resourceId?: string;
  /** events per request (1-500, default 100) */
  count?: number;
  /** the wait between polls once the feed is read to the end (default 5,000 ms) */
  intervalMs?: number;
  /** ends the follower: the loop over it finishes without an error */
  signal?: AbortSignal;
}

export const DEFAULT_FOLLOW_INTERVAL_MS = 5_000;
/** The page size of the skip to the end for `fromNow`: the largest, the fewest requests. */
const SKIP_PAGE_SIZE = 500;
/** Never wait longer than this on the strength of a rate-limit header (a clock far off, a broken proxy). */
const MAX_PACING_WAIT_MS = 65_000;

type FetchPage = (query: ListEventsQuery, options: RequestOptions) => Promise<EventFeedPage>;

export class EventFollower implements AsyncIterable<ChangeEvent> {
  readonly #fetchPage: FetchPage;
  readonly #options: FollowOptions;
  #cursor: string | undefined;
  #started = false;

  constructor(fetchPage: FetchPage, options: FollowOptions) {
    const interval = options.intervalMs ?? DEFAULT_FOLLOW_INTERVAL_MS;
    if (!Number.isFinite(interval) || interval < 0) throw new TypeError('intervalMs must be a number of milliseconds ≥ 0');
    if (options.after !== undefined && options.fromNow) throw new TypeError('give either after or fromNow, not both');
    this.#fetchPage = fetchPage;
    this.#options = options;
    this.#cursor = options.after;
  }

  /**
   * Where to resume: the position after the last page whose events were all yielded (undefined
   * before the first page). Store it and pass it as `after` (with the same filters); a loop left
   * in the middle of a page sees that page's remaining events again (they keep their eventId).
   */
  get cursor(): string | undefined {
    return this.#cursor;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ChangeEvent, void, undefined> {
    if (this.#started) throw new TypeError('a follower is iterated once; make another with the cursor it reached');
    this.#started = true;
    const { signal } = this.#options;
    const interval = this.#options.intervalMs ?? DEFAULT_FOLLOW_INTERVAL_MS;
    let pauseUntil = 0;
    const page = async (cursor: string | undefined, count: number | undefined): Promise<EventFeedPage> => {
      for (;;) {
        await sleep(pauseUntil - Date.now(), signal);
        try {
          const result = await this.#fetchPage(this.#query(cursor, count), this.#requestOptions());
          pauseUntil = pacedUntil(result.response.headers);
          return result;
        } catch (err) {
          if (!(err instanceof RateLimitError)) throw err;
          // Still limited after the sender's retries: wait the window out and ask again.
          pauseUntil = Date.now() + (retryAfterMs(err.headers) ?? interval);
        }
      }
    };
    try {
      if (this.#options.fromNow && this.#cursor === undefined) {
        for (;;) {
          const skipped = await page(this.#cursor, SKIP_PAGE_SIZE);
          this.#cursor = skipped.meta.nextCursor;
          if (!skipped.meta.hasMore) break;
        }
      }
      for (;;) {
        const result = await page(this.#cursor, this.#options.count);
        yield* result.data;
        this.#cursor = result.meta.nextCursor;
        if (!result.meta.hasMore) await sleep(interval, signal);
      }
    } catch (err) {
      // The caller's abort ends the loop; anything else is theirs to see.
      if (signal?.aborted) return;
      throw err;
    }
  }

  #query(cursor: string | undefined, count: number | undefined): ListEventsQuery {
    const { types, resourceId } = this.#options;
    return { types, resourceId, count, nextCursor: cursor };
  }

  #requestOptions(): RequestOptions {
    const { signal, timeoutMs, maxRetries } = this.#options;
    return { signal, timeoutMs, maxRetries };
  }
}

/** When the next request may go: at the window's reset when this answer used the window up, else now. */
function pacedUntil(headers: Headers): number {
  const remaining = Number(headers.get('x-ratelimit-remaining'));
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (!headers.has('x-ratelimit-remaining') || !Number.isFinite(remaining) || remaining > 0 || !Number.isFinite(reset)) return 0;
  return Math.min(reset * 1000 + 250, Date.now() + MAX_PACING_WAIT_MS);
}
