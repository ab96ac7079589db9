// The events outbox and feed (migration 0010): numbering, inserting, reading in commit order, and
// removing by age. The rules (which events a write records, who may read which) live in
// src/domain/events/.
import { sql, type Kysely } from 'kysely';
import { shareTheLoop } from '../../../../shared/event-loop-turns.ts';
import type { Database } from '../../schema.ts';
import { dialectOf, insertStatement, rowsPerStatement } from '../../bulk-insert.ts';

type Q = Kysely<Database>;

export interface EventRow {
  id: string;
  type: string;
  resourceType: string;
  resourceId: string;
  occurredAt: number;
  /** the JSON text of the event's data */
  data: string;
}

export interface StoredEvent extends EventRow {
  seq: number;
}

/**
 * Takes `n` event numbers of the organization, returning the last one (the numbers are
 * last-n+1 … last). One statement both increments and locks the organization's row until the
 * transaction ends, so a second write of the organization takes its numbers only after the first
 * committed: numbers grow in commit order (PostgreSQL re-reads the row after waiting for the
 * lock; SQLite runs one write transaction at a time).
 */
export async function takeEventNumbers(db: Q, organizationId: string, n: number): Promise<number> {
  const row = await db
    .updateTable('organizations')
    .set({ event_seq: sql`event_seq + ${n}` })
    .where('id', '=', organizationId)
    .returning('event_seq')
    .executeTakeFirstOrThrow();
  return Number(row.event_seq);
}

export async function insertEvents(db: Q, organizationId: string, rows: readonly StoredEvent[]): Promise<void> {
  // chunked: a bulk write (a program document's apply) records thousands of events, and one
  // statement of 8 values a row would pass the engines' bind parameter limits; on SQLite, whose
  // statements hold the event loop while they run, in chunks as short as a bulk insert's, with a
  // turn of the loop between them (bulk-insert.ts, STATEMENT_VALUES); on PostgreSQL within its
  // budget too, the building of a statement being the loop's work there
  const chunk = rowsPerStatement(dialectOf(db), EVENT_COLUMNS.length);
  for (let i = 0; i < rows.length; i += chunk) {
    await insertEventChunk(db, organizationId, rows.slice(i, i + chunk));
    await shareTheLoop();
  }
}

/** An event's columns, with their PostgreSQL types (migration 0010). */
const EVENT_COLUMNS = [
  { name: 'organization_id', postgresType: 'text' },
  { name: 'seq', postgresType: 'bigint' },
  { name: 'id', postgresType: 'text' },
  { name: 'type', postgresType: 'text' },
  { name: 'resource_type', postgresType: 'text' },
  { name: 'resource_id', postgresType: 'text' },
  { name: 'occurred_at', postgresType: 'bigint' },
  { name: 'data', postgresType: 'text' },
] as const;

/**
 * One statement of events, by bulk-insert.ts's statements rather than Kysely's builder: the builder
 * makes objects for every value, and on PostgreSQL building the statement is the event loop's work
 * (an import's events were the largest part of what it left on the loop: issue 36).
 */
async function insertEventChunk(db: Q, organizationId: string, rows: readonly StoredEvent[]): Promise<void> {
  const values = rows.map((r) => ({
    organization_id: organizationId,
    seq: r.seq,
    id: r.id,
    type: r.type,
    resource_type: r.resourceType,
    resource_id: r.resourceId,
    occurred_at: r.occurredAt,
    data: r.data,
  }));
  await db.executeQuery(insertStatement(dialectOf(db), 'events', EVENT_COLUMNS, values));
}

export interface EventFilter {
  /** only these types (never empty) */
  types: readonly string[];
  resourceId?: string;
}

/** Up to `limit` events of the organization after number `afterSeq`, in number (commit) order. */
export async function listEventsAfter(
  db: Q,
  organizationId: string,
  filter: EventFilter,
  afterSeq: number,
  limit: number,
): Promise<StoredEvent[]> {
  let query = db
    .selectFrom('events')
    .select(['seq', 'id', 'type', 'resource_type', 'resource_id', 'occurred_at', 'data'])
    .where('organization_id', '=', organizationId)
    .where('seq', '>', afterSeq)
    .where('type', 'in', filter.types);
  if (filter.resourceId !== undefined) query = query.where('resource_id', '=', filter.resourceId);
  const rows = await query.orderBy('seq').limit(limit).execute();
  return rows.map((r) => ({ seq: Number(r.seq), ...toEventRow(r) }));
}

/** An `events` row as the domain reads it. */
function toEventRow(r: {
  id: string;
  type: string;
  resource_type: string;
  resource_id: string;
  occurred_at: number;
  data: string;
}): EventRow {
  return {
    id: r.id,
    type: r.type,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    occurredAt: Number(r.occurred_at),
    data: r.data,
  };
}

/** The organization's last event number (0 before any event). */
export async function lastEventNumber(db: Q, organizationId: string): Promise<number> {
  const row = await db.selectFrom('organizations').select('event_seq').where('id', '=', organizationId).executeTakeFirst();
  return row ? Number(row.event_seq) : 0;
}

/**
 * Removes at most `limit` events that occurred before `cutoff` (any organization), oldest first;
 * answers how many it removed, so the caller repeats until fewer than `limit` go.
 */
export async function deleteEventsBefore(db: Q, cutoff: number, limit: number): Promise<number> {
  const victims = db.selectFrom('events').select('id').where('occurred_at', '<', cutoff).orderBy('occurred_at').limit(limit);
  const result = await db.deleteFrom('events').where('id', 'in', victims).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** One event of the organization by its ID (undefined: none such, or removed by its retention). */
export async function findEvent(db: Q, organizationId: string, eventId: string): Promise<EventRow | undefined> {
  const r = await db
    .selectFrom('events')
    .select(['id', 'type', 'resource_type', 'resource_id', 'occurred_at', 'data'])
    .where('id', '=', eventId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return r && toEventRow(r);
}
