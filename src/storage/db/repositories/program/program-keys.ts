// The keys program documents named records by (migration 0017): read whole per organization (an
// apply and an export resolve every key of the document at once), written in bulk.
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { bulkInsert } from '../../bulk-insert.ts';
import type { Db } from '../../connect.ts';
import { idChunks } from '../../id-chunks.ts';

type Q = Kysely<Database>;

export interface ProgramKeyRow {
  kind: string;
  key: string;
  recordId: string;
}

export async function loadProgramKeys(db: Q, organizationId: string): Promise<ProgramKeyRow[]> {
  const rows = await db
    .selectFrom('program_keys')
    .select(['kind', 'key', 'record_id'])
    .where('organization_id', '=', organizationId)
    .execute();
  return rows.map((r) => ({ kind: r.kind, key: r.key, recordId: r.record_id }));
}

export async function insertProgramKeys(db: Db, trx: Q, organizationId: string, rows: readonly ProgramKeyRow[]): Promise<void> {
  await bulkInsert(
    db,
    'program_keys',
    rows.map((r) => ({ organization_id: organizationId, kind: r.kind, key: r.key, record_id: r.recordId })),
    { executor: trx },
  );
}

/** Forgets the keys of deleted records. */
export async function deleteProgramKeys(trx: Q, organizationId: string, kind: string, recordIds: readonly string[]): Promise<void> {
  for (const chunk of idChunks(recordIds, 1000)) {
    await trx
      .deleteFrom('program_keys')
      .where('organization_id', '=', organizationId)
      .where('kind', '=', kind)
      .where('record_id', 'in', chunk)
      .execute();
  }
}
