import { PostgresAdapter, sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../../schema.ts';
import { RateLimitExceeded } from '../../../../shared/errors.ts';
import { DATA_KINDS, INITIAL_DATA_VERSIONS, type DataKind, type DataVersions } from '../../../../shared/data-versions.ts';

export interface Organization {
  id: string;
  name: string;
  region: string;
  plan: string[];
  createdAt: number;
}

type Q = Kysely<Database>;

const toOrganization = (row: Selectable<Database['organizations']>): Organization => ({
  id: row.id,
  name: row.name,
  region: row.region,
  plan: row.plan ? row.plan.split(',') : [],
  createdAt: Number(row.created_at),
});

export async function insertOrganization(db: Q, org: Organization): Promise<void> {
  await db
    .insertInto('organizations')
    .values({
      id: org.id,
      name: org.name,
      region: org.region,
      plan: org.plan.join(','),
      ...versionColumns(INITIAL_DATA_VERSIONS),
      created_at: org.createdAt,
    })
    .execute();
}

export async function listOrganizations(db: Q): Promise<Organization[]> {
  const rows = await db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toOrganization);
}

export async function findOrganization(db: Q, id: string): Promise<Organization | undefined> {
  const row = await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toOrganization(row);
}

export async function updateOrganizationPlan(db: Q, id: string, plan: string[]): Promise<boolean> {
  const result = await db
    .updateTable('organizations')
    .set({ plan: plan.join(',') })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// ---- Data versions (src/shared/data-versions.ts) ----

type VersionColumn = `${DataKind}_version`;
const versionColumn = (kind: DataKind): VersionColumn => `${kind}_version`;
/** The organization's columns holding its data versions, in DATA_KINDS order. */
export const VERSION_COLUMNS: readonly VersionColumn[] = DATA_KINDS.map(versionColumn);

const versionColumns = (versions: DataVersions): Record<VersionColumn, number> =>
  Object.fromEntries(DATA_KINDS.map((k) => [versionColumn(k), versions[k]])) as Record<VersionColumn, number>;

/** The data versions of a row holding VERSION_COLUMNS (bigint arrives as a string from PostgreSQL). */
export function dataVersionsOf(row: Record<VersionColumn, number | string>): DataVersions {
  return Object.fromEntries(DATA_KINDS.map((k) => [k, Number(row[versionColumn(k)])])) as Record<DataKind, number>;
}

/**
 * Every write to an organization's data calls this in its transaction with the kinds it changes
 * (WRITES in src/shared/data-versions.ts): the cached answers that read those kinds become
 * unreachable on every node.
 */
export async function bumpDataVersions(db: Q, id: string, kinds: readonly DataKind[]): Promise<void> {
  if (kinds.length === 0) return;
  await db
    .updateTable('organizations')
    .set(Object.fromEntries(kinds.map((k) => [versionColumn(k), sql`${sql.ref(versionColumn(k))} + 1`])))
    .where('id', '=', id)
    .execute();
}

/**
 * The longest a write waits for another write of the same organization to let its lock go
 * (PostgreSQL). Past it the write is refused `429` with Retry-After, as Stripe answers a request on
 * a locked object: waiting on, it would meet the statement time-out and answer 500 (ten imports of
 * one organization at once did, issue 36).
 */
export const ORGANIZATION_LOCK_WAIT_MS = 10_000;
const ORGANIZATION_LOCK_RETRY_SEC = 5;

/** The refusal of a write that waited ORGANIZATION_LOCK_WAIT_MS for another write of its organization. */
export const organizationBusy = () =>
  new RateLimitExceeded(
    ORGANIZATION_LOCK_RETRY_SEC,
    `Another write of this organization has held it for over ${ORGANIZATION_LOCK_WAIT_MS / 1000} s; retry in ${ORGANIZATION_LOCK_RETRY_SEC} s.`,
  );

/**
 * Called first in a transaction that checks an organization-wide limit before a write (counting
 * then inserting): concurrent ones then run one after the other. PostgreSQL: a row lock on the
 * organization, waited for at most ORGANIZATION_LOCK_WAIT_MS (then RateLimitExceeded). SQLite:
 * nothing to do, its transactions take the write lock up front (BEGIN IMMEDIATE, see
 * sqlite-connections.ts).
 */
export async function lockOrganization(db: Q, id: string): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // The bound applies to this wait only: set for the transaction, then put back.
  await sql`select set_config('lock_timeout', ${String(ORGANIZATION_LOCK_WAIT_MS)}, true)`.execute(db);
  try {
    await db.selectFrom('organizations').select('id').where('id', '=', id).forNoKeyUpdate().execute();
  } catch (err) {
    // 55P03 lock_not_available: another write of the organization held its lock past the bound
    if ((err as { code?: unknown }).code === '55P03') throw organizationBusy();
    throw err;
  }
  await sql`set local lock_timeout to default`.execute(db);
}

export async function countOrganizations(db: Q): Promise<number> {
  const row = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What an actor of the organization needs besides its scopes: the plan and the data versions. */
export async function findOrganizationState(db: Q, id: string): Promise<{ plan: string[]; dataVersions: DataVersions } | undefined> {
  const row = await db
    .selectFrom('organizations')
    .select(['plan', ...VERSION_COLUMNS])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { plan: row.plan ? row.plan.split(',') : [], dataVersions: dataVersionsOf(row) };
}
