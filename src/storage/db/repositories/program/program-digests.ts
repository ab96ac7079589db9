// What the last program apply left per kind (migration 0019; src/domain/program/settled-kinds.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

type Q = Kysely<Database>;

export interface ProgramDigestRow {
  kind: string;
  digest: string;
  versions: string;
}

export async function loadProgramDigests(db: Q, organizationId: string): Promise<ProgramDigestRow[]> {
  return db.selectFrom('program_digests').select(['kind', 'digest', 'versions']).where('organization_id', '=', organizationId).execute();
}

/** Replaces every row of the organization with `rows` (an apply's kinds; the others' rows are retired). */
export async function replaceProgramDigests(db: Q, organizationId: string, rows: readonly ProgramDigestRow[]): Promise<void> {
  await db.deleteFrom('program_digests').where('organization_id', '=', organizationId).execute();
  if (rows.length > 0)
    await db
      .insertInto('program_digests')
      .values(rows.map((r) => ({ organization_id: organizationId, kind: r.kind, digest: r.digest, versions: r.versions })))
      .execute();
}
