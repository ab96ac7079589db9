// GET /v1/events (an extension of the service, issue 15): the organization's change events in
// commit order. `listPage` is one page; `list` walks from a cursor (or the oldest event kept) to
// the present; `follow` keeps polling after that, yielding events as they are committed.
import type { ListEventsQuery } from '../generated/api.ts';
import { EventFollower, type FollowOptions } from '../events/follow.ts';
import { EventWalk, type EventFeedPage } from '../events/walk.ts';
import { send, type ClientContext, type RequestOptions } from './operation.ts';

export type EventListQuery = ListEventsQuery;
export { EventFollower, EventWalk, type EventFeedPage, type FollowOptions };

export class Events {
  readonly #ctx: ClientContext;
  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
  }

  /**
   * Every event from `query.nextCursor` (default: the oldest event the service keeps) up to the
   * last one committed: `for await (const e of client.events.list({ types: ['vulnerability.created'] }))`,
   * `.pages()`, or `.toArray({ limit })`. Afterwards `.cursor` is where to continue from later
   * (store it; pass it back as `nextCursor`, with the same filters).
   */
  list(query: EventListQuery = {}, options?: RequestOptions): EventWalk {
    return new EventWalk((q) => this.listPage(q, options), query);
  }

  /** One page. `meta.nextCursor` is never null: pass it back (same filters) for the next page, now while `meta.hasMore`, later otherwise. */
  listPage(query?: EventListQuery, options?: RequestOptions): Promise<EventFeedPage> {
    return send(this.#ctx, 'listEvents', { query, options });
  }

  /**
   * Polls the feed and yields each event as it is committed, without end: `for await (const e of
   * client.events.follow({ after: storedCursor, signal }))`. Aborting `signal` ends the loop
   * quietly; `.cursor` then says where to resume. Rate limits are waited out, never thrown.
   */
  follow(options: FollowOptions = {}): EventFollower {
    return new EventFollower((q, o) => this.listPage(q, o), options);
  }
}
