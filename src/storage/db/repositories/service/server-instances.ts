// Running server processes (migration 0009): each renews its row's heartbeat; an instance whose
// heartbeat is older than the liveness window, or which has no row, is gone, and its in-progress
// claims and pending uploads are abandoned (repositories/service/idempotency.ts, repositories/artifacts/uploads.ts).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

type Q = Kysely<Database>;

export interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  startedAt: number;
}

/** Records a heartbeat at `now`, inserting the instance's row when it is missing (first beat, or removed while unreachable). */
export async function beat(db: Q, instance: InstanceRow, now: number): Promise<void> {
  await db
    .insertInto('server_instances')
    .values({ id: instance.id, host: instance.host, pid: instance.pid, started_at: instance.startedAt, heartbeat_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: now }))
    .execute();
}

export async function deleteInstance(db: Q, id: string): Promise<void> {
  await db.deleteFrom('server_instances').where('id', '=', id).execute();
}

/** The other instances recorded as running on `host` (SQLite start-up checks whether their processes still exist). */
export async function listInstancesOnHost(db: Q, host: string, except: string): Promise<Array<{ id: string; pid: number }>> {
  const rows = await db.selectFrom('server_instances').select(['id', 'pid']).where('host', '=', host).where('id', '!=', except).execute();
  return rows.map((r) => ({ id: r.id, pid: Number(r.pid) }));
}

/** Removes the rows of instances silent since before `before` (they are treated as gone whether the row is there or not). */
export async function deleteSilentInstances(db: Q, before: number): Promise<number> {
  const result = await db.deleteFrom('server_instances').where('heartbeat_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * True (as SQL) when the instance named by `column` of the row in scope is alive: it has a row
 * whose heartbeat is at or after `aliveSince`. Used inside the WHERE of a takeover, so that the
 * liveness check and the takeover are one statement.
 */
export function instanceAlive(
  column: 'idempotency_records.instance_id' | 'pending_uploads.instance_id' | 'webhook_deliveries.lease_owner',
  aliveSince: number,
) {
  return sql<boolean>`exists (select 1 from server_instances where server_instances.id = ${sql.ref(column)} and server_instances.heartbeat_at >= ${aliveSince})`;
}

/** How many server processes have beaten at or after `aliveSince` (`cds restore --force` refuses to replace a database in use). */
export async function countLiveInstances(db: Q, aliveSince: number): Promise<number> {
  const row = await db
    .selectFrom('server_instances')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('heartbeat_at', '>=', aliveSince)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
