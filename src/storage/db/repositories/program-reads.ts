// Reads the program pipeline needs beside each kind's own (src/domain/program/).
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

type Q = Kysely<Database>;

/** The IDs of every control and framework of the organization. */
export async function listControlAndFrameworkIds(db: Q, organizationId: string): Promise<{ controlIds: string[]; frameworkIds: string[] }> {
  const [controls, frameworks] = await Promise.all([
    db.selectFrom('controls').select('id').where('organization_id', '=', organizationId).execute(),
    db.selectFrom('frameworks').select('id').where('organization_id', '=', organizationId).execute(),
  ]);
  return { controlIds: controls.map((r) => r.id), frameworkIds: frameworks.map((r) => r.id) };
}
