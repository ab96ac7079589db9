// Shared by the test/http/events-*.test.ts files: the events table read straight from the
// database (credential events are not in the feed, and a rollback must leave nothing there), the
// feed over HTTP, and a failure injected into a write's transaction after its events were recorded.
import { sql } from 'kysely';
import { api, type TestServer } from './server.ts';
import type { TestDatabase } from './engines.ts';

export interface EventRowView {
  seq: number;
  id: string;
  type: string;
  resourceType: string;
  resourceId: string;
  occurredAt: number;
  data: any;
}

/** Every stored event of the organization, in number order. */
export async function storedEvents(database: Pick<TestDatabase, 'db'>, organizationId: string): Promise<EventRowView[]> {
  const rows = await database.db.kysely
    .selectFrom('events')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({
    seq: Number(r.seq),
    id: r.id,
    type: r.type,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    occurredAt: Number(r.occurred_at),
    data: JSON.parse(r.data),
  }));
}

/** The organization's event counter (organizations.event_seq). */
export async function eventCounter(database: Pick<TestDatabase, 'db'>, organizationId: string): Promise<number> {
  const row = await database.db.kysely
    .selectFrom('organizations')
    .select('event_seq')
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return Number(row.event_seq);
}

/** GET /v1/events with the given query parameters. */
export function feed(server: Pick<TestServer, 'url'>, token: string, query: Record<string, string | number | undefined> = {}) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const qs = params.size > 0 ? `?${params}` : '';
  return api(server.url, `/v1/events${qs}`, token);
}

/** Every event the feed gives from the start, page by page; with the last cursor. */
export async function readAll(server: Pick<TestServer, 'url'>, token: string, query: Record<string, string | number | undefined> = {}) {
  const events: any[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const res = await feed(server, token, { ...query, nextCursor: cursor });
    if (res.status !== 200) throw new Error(`feed: ${res.status} ${JSON.stringify(res.body)}`);
    events.push(...res.body.data);
    cursor = res.body.meta.nextCursor;
    if (!res.body.meta.hasMore) return { events, cursor: cursor! };
  }
  throw new Error('feed: more than 1000 pages');
}

/**
 * Makes the completion of an idempotency record whose key starts with `boom-` fail: the last
 * statement of every idempotent write's transaction, run after the write recorded its events, so
 * the whole transaction rolls back. Returns the function that removes the trigger.
 */
export async function failCompletionOfBoomKeys(database: TestDatabase): Promise<() => Promise<void>> {
  const k = database.db.kysely;
  if (database.db.dialect === 'postgres') {
    await sql
      .raw(
        `CREATE FUNCTION events_test_fail() RETURNS trigger AS $$ BEGIN
           IF NEW.idempotency_key LIKE 'boom-%' AND NEW.state = 'completed' THEN RAISE EXCEPTION 'injected failure'; END IF;
           RETURN NEW; END $$ LANGUAGE plpgsql`,
      )
      .execute(k);
    await sql
      .raw('CREATE TRIGGER events_test_fail BEFORE UPDATE ON idempotency_records FOR EACH ROW EXECUTE FUNCTION events_test_fail()')
      .execute(k);
    return async () => {
      await sql.raw('DROP TRIGGER events_test_fail ON idempotency_records').execute(k);
      await sql.raw('DROP FUNCTION events_test_fail()').execute(k);
    };
  }
  await sql
    .raw(
      `CREATE TRIGGER events_test_fail BEFORE UPDATE ON idempotency_records
       WHEN NEW.idempotency_key LIKE 'boom-%' AND NEW.state = 'completed'
       BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    )
    .execute(k);
  return async () => {
    await sql.raw('DROP TRIGGER events_test_fail').execute(k);
  };
}

/**
 * Evidence records of the organization that an upload makes complete and that are linked to a
 * control (relevant, not yet uploaded, without approvers), by ID: uploads to them flip controls.
 */
export async function completableEvidence(database: Pick<TestDatabase, 'db'>, organizationId: string, limit: number): Promise<string[]> {
  const rows = await database.db.kysely
    .selectFrom('evidence as e')
    .innerJoin('control_artifacts as ca', (j) => j.onRef('ca.artifact_id', '=', 'e.id').on('ca.artifact_type', '=', 'evidence'))
    .select('e.id')
    .distinct()
    .where('e.organization_id', '=', organizationId)
    .where('e.is_relevant', '=', true)
    .where('e.status', '!=', 'uploaded')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('subject_people as sp')
            .select('sp.subject_id')
            .whereRef('sp.subject_id', '=', 'e.id')
            .where('sp.subject_type', '=', 'evidence')
            .where('sp.role', '=', 'approver'),
        ),
      ),
    )
    .orderBy('e.id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
