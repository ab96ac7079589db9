// The events feed (GET /v1/events): one page of the organization's change events in commit order
// (ascending event number, see takeEventNumbers in storage/db/repositories/events/events.ts).
//
// Scopes and plan: an event type is read with the read scope of its resource and needs the plan to
// include that resource. Without `types` the feed gives every type the token may read (and none
// when it may read none); naming a type it may not read answers 403 as the resource's own list
// would. Credential events are for administrators (webhooks) and are never in the feed. An event
// never names a record the plan hides: a computed control event's cause is left out when the plan
// excludes the cause's resource (plan-bounds.ts), with the plan as it is at the read.
//
// The cursor is the event number to continue after, signed together with the organization and the
// filters as asked (not the types the scopes allowed: a plan that changes keeps cursors valid). It
// is never null: a poller stores it and asks again later. On the last page it is the organization's
// last committed event number read before the page, so events of other types are not scanned again.
import type { Context } from '../context.ts';
import { authorize, type Actor, type Resource } from '../auth/scopes.ts';
import { cursorKey, openCursor, signCursor } from '../cursor.ts';
import { validationFailed } from '../../shared/errors.ts';
import { lastEventNumber, listEventsAfter } from '../../storage/db/repositories/events/events.ts';
import { FEED_EVENT_TYPES, resourceTypeOf, type FeedEvent, type FeedEventType } from './schema.ts';
import { dataWithinPlan } from './plan-bounds.ts';

export const DEFAULT_EVENTS_PAGE_SIZE = 100;
export const MAX_EVENTS_PAGE_SIZE = 500;
/** The longest resourceId accepted: longer than any ID the service issues. */
export const MAX_RESOURCE_ID_LENGTH = 512;

export interface ListEventsInput {
  types?: FeedEventType[];
  resourceId?: string;
  /** 1-500 (the route validates); 100 when absent */
  count?: number;
  nextCursor?: string;
}

export interface EventsPage {
  data: FeedEvent[];
  nextCursor: string;
  hasMore: boolean;
}

const readable = (actor: Actor, type: FeedEventType): boolean => {
  const resource = resourceTypeOf(type) as Resource;
  const scoped = actor.scopes.has(`${resource}:read`) || actor.scopes.has(`${resource}:write`);
  return scoped && actor.plan.has(resource);
};

/** What a cursor is bound to: the organization and the filters as asked, normalized. */
export function bindingOf(organizationId: string, types: readonly string[] | undefined, resourceId: string | undefined): string {
  return ['events', organizationId, `types=${types ? types.join(',') : '*'}`, `resourceId=${resourceId ?? '*'}`].join('|');
}

const badCursor = () =>
  validationFailed(
    [{ field: 'nextCursor', message: 'is not a cursor this service issued for these filters; start again without nextCursor' }],
    'The cursor is invalid.',
  );

function positionOf(raw: unknown[] | undefined): number {
  if (raw?.length !== 1) throw badCursor();
  const [seq] = raw;
  if (!Number.isSafeInteger(seq) || (seq as number) < 0) throw badCursor();
  return seq as number;
}

export async function listEvents({ ctx, input }: { ctx: Context; input: ListEventsInput }): Promise<EventsPage> {
  const actor = ctx.actor;
  const asked = input.types && input.types.length > 0 ? [...new Set(input.types)].sort() : undefined;
  // Scope first: each type asked must be readable, with the error its resource's list gives.
  if (asked) for (const type of asked) authorize(actor, resourceTypeOf(type) as Resource, 'read');
  const types = asked ?? FEED_EVENT_TYPES.filter((t) => readable(actor, t));

  const org = actor.organizationId;
  const db = ctx.db.kysely;
  const binding = bindingOf(org, asked, input.resourceId);
  const key = await cursorKey(ctx.db, ctx.cursorSecret, ctx.now);
  const after = input.nextCursor === undefined ? 0 : positionOf(openCursor(key, binding, input.nextCursor));
  const size = input.count ?? DEFAULT_EVENTS_PAGE_SIZE;

  // Read before the page: every event numbered up to it has committed (the number is taken under
  // the organization's row lock, held to commit), so the page's later read sees all of them.
  const committed = await lastEventNumber(db, org);
  const rows = types.length === 0 ? [] : await listEventsAfter(db, org, { types, resourceId: input.resourceId }, after, size + 1);
  const page = rows.slice(0, size);
  const hasMore = rows.length > size;
  const last = page[page.length - 1];
  const position = hasMore ? last!.seq : Math.max(after, last?.seq ?? 0, committed);
  const data = page.map(
    (row) =>
      ({
        eventId: row.id,
        type: row.type,
        occurredAt: row.occurredAt,
        resourceType: row.resourceType,
        resourceId: row.resourceId,
        data: dataWithinPlan(actor.plan, row.type, JSON.parse(row.data)),
      }) as FeedEvent,
  );
  return { data, nextCursor: signCursor(key, binding, [position]), hasMore };
}
