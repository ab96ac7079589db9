import { PostgresAdapter, type Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface Organization {
  id: string;
  name: string;
  region: string;
  plan: string[];
  createdAt: number;
}

type Q = Kysely<Database>;

const toOrganization = (row: Database['organizations']): Organization => ({
  id: row.id,
  name: row.name,
  region: row.region,
  plan: row.plan ? row.plan.split(',') : [],
  createdAt: Number(row.created_at),
});

export async function insertOrganization(db: Q, org: Organization): Promise<void> {
  await db
    .insertInto('organizations')
    .values({ id: org.id, name: org.name, region: org.region, plan: org.plan.join(','), data_version: 0, created_at: org.createdAt })
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
    .set((eb) => ({ plan: plan.join(','), data_version: eb('data_version', '+', 1) }))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Every write to an organization's data calls this in its transaction: it invalidates cached results on every node. */
export async function bumpDataVersion(db: Q, id: string): Promise<void> {
  await db
    .updateTable('organizations')
    .set((eb) => ({ data_version: eb('data_version', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/**
 * Called first in a transaction that checks an organization-wide limit before a write (counting
 * then inserting): concurrent ones then run one after the other. PostgreSQL: a row lock on the
 * organization. SQLite: nothing to do, its transactions take the write lock up front (BEGIN
 * IMMEDIATE, see sqlite-driver.ts).
 */
export async function lockOrganization(db: Q, id: string): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.selectFrom('organizations').select('id').where('id', '=', id).forUpdate().execute();
}

export async function countOrganizations(db: Q): Promise<number> {
  const row = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What an actor of the organization needs besides its scopes: the plan and the data version. */
export async function findOrganizationState(db: Q, id: string): Promise<{ plan: string[]; dataVersion: number } | undefined> {
  const row = await db.selectFrom('organizations').select(['plan', 'data_version']).where('id', '=', id).executeTakeFirst();
  return row && { plan: row.plan ? row.plan.split(',') : [], dataVersion: Number(row.data_version) };
}
