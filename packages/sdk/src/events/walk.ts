// Walking the events feed to the present. Unlike the vulnerability list (pagination.ts), the feed's
// nextCursor is never null and there is no totalCount: `meta.hasMore` says whether to ask again
// now, and the last page's cursor is where a later walk or follower continues.
import { PaginationError } from '../errors.ts';
import type { ListEventsQuery, ListEventsResponse } from '../generated/api.ts';
import type { WithResponse } from '../resources/operation.ts';
import type { ChangeEvent } from '../types.ts';

export type EventFeedPage = WithResponse<ListEventsResponse>;
export type FetchEventPage = (query: ListEventsQuery) => Promise<EventFeedPage>;

export class EventWalk implements AsyncIterable<ChangeEvent> {
  readonly #fetchPage: FetchEventPage;
  readonly #query: ListEventsQuery;
  #cursor: string | undefined;

  constructor(fetchPage: FetchEventPage, query: ListEventsQuery) {
    this.#fetchPage = fetchPage;
    this.#query = query;
    this.#cursor = query.nextCursor;
  }

  /**
   * The position after the last page whose events were all read: the `nextCursor` to store and
   * pass back (with the same filters). Before any page it is the starting cursor.
   */
  get cursor(): string | undefined {
    return this.#cursor;
  }

  /** Each page in turn, until one says `hasMore: false`. Throws PaginationError when the service would have the walk repeat a page. */
  async *pages(): AsyncGenerator<EventFeedPage, void, undefined> {
    let cursor = this.#query.nextCursor;
    for (;;) {
      const page = await this.#fetchPage({ ...this.#query, nextCursor: cursor });
      yield page;
      this.#cursor = page.meta.nextCursor;
      if (!page.meta.hasMore) return;
      if (page.meta.nextCursor === cursor) throw new PaginationError('the service said there is more but sent the same cursor again');
      cursor = page.meta.nextCursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ChangeEvent, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Collects at most `limit` events (a required cap: a feed of many days can be long). */
  async toArray(options: { limit: number }): Promise<ChangeEvent[]> {
    const limit = options?.limit;
    if (!Number.isInteger(limit) || limit < 0) throw new TypeError('toArray needs { limit }: a whole number of events, at least 0');
    const events: ChangeEvent[] = [];
    if (limit === 0) return events;
    for await (const event of this) {
      events.push(event);
      if (events.length >= limit) break;
    }
    return events;
  }
}
