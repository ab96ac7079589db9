// The events outbox and feed (migration 0010): numbering, inserting, reading in commit order, and
// removing by age. The rules (which events a write records, who may read which) live in
// src/domain/events/.
import { CompiledQuery, PostgresAdapter, sql, type Kysely } from 'kysely';
import { shareTheLoop } from '../../../../shared/event-loop-turns.ts';
import type { Database } from '../../schema.ts';
import { rowsPerStatement } from '../../bulk-insert.ts';

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
  const chunk = rowsPerStatement(db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite', EVENT_VALUES, {
    form: 'values',
  });
  for (let i = 0; i < rows.length; i += chunk) {
    await insertEventChunk(db, organizationId, rows.slice(i, i + chunk));
    await shareTheLoop();
  }
}

/** The values of an event's row (insertEventChunk). */
const EVENT_VALUES = 8;

/**
 * One statement of events, its SQL written here rather than through Kysely's builder: the builder
 * makes objects for every value, and on PostgreSQL building the statement is the event loop's work
 * (an import's events were the largest part of what it left on the loop: issue 36). PostgreSQL
 * binds one array a column (bulk-insert.ts's arrays form), SQLite one value a parameter.
 */
async function insertEventChunk(db: Q, organizationId: string, rows: readonly StoredEvent[]): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const columns: unknown[][] = [[], [], [], [], [], [], []];
    for (const r of rows) {
      columns[0]!.push(r.seq);
      columns[1]!.push(r.id);
      columns[2]!.push(r.type);
      columns[3]!.push(r.resourceType);
      columns[4]!.push(r.resourceId);
      columns[5]!.push(r.occurredAt);
      columns[6]!.push(r.data);
    }
    await db.executeQuery(CompiledQuery.raw(POSTGRES_EVENTS_INSERT, [organizationId, ...columns]));
    return;
  }
  const params: unknown[] = [];
  for (const r of rows) params.push(organizationId, r.seq, r.id, r.type, r.resourceType, r.resourceId, r.occurredAt, r.data);
  await db.executeQuery(CompiledQuery.raw(`${SQLITE_EVENTS_INSERT}${new Array(rows.length).fill(SQLITE_EVENT_ROW).join(',')}`, params));
}

const EVENT_COLUMNS = '"organization_id", "seq", "id", "type", "resource_type", "resource_id", "occurred_at", "data"';
const POSTGRES_EVENTS_INSERT = `insert into "events" (${EVENT_COLUMNS}) select $1::text, u.* from unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[]) as u`;
const SQLITE_EVENTS_INSERT = `insert into "events" (${EVENT_COLUMNS}) values `;
const SQLITE_EVENT_ROW = '(?, ?, ?, ?, ?, ?, ?, ?)';

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
