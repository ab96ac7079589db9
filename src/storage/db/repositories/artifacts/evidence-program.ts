// Evidence records as a program document's apply and export see them: every stored column and
// link of every record of an organization, read in a fixed number of statements, and the bulk
// writes of an apply. Attachments a document can write are external links (a URL and no blob);
// files the service hosts are only counted here, never changed.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Db } from '../../connect.ts';
import type { Database } from '../../schema.ts';
import { insertRows } from '../program/program-writes.ts';
import { idChunks } from '../../id-chunks.ts';

type Q = Kysely<Database>;

export type EvidenceColumns = Omit<Insertable<Database['evidence']>, 'organization_id'>;
export type LinkAttachmentColumns = Omit<Insertable<Database['attachments']>, 'organization_id'>;

export interface StoredEvidence {
  rows: Selectable<Database['evidence']>[];
  /** external links, by evidence, newest evidence date first, then by ID (the read API's order) */
  links: Selectable<Database['attachments']>[];
  tests: { evidenceId: string; testId: string }[];
  /** how many files the service hosts (anything that is not an external link) each record holds */
  hostedCounts: Map<string, number>;
}

export async function readStoredEvidence(db: Q, organizationId: string): Promise<StoredEvidence> {
  const org = organizationId;
  const [rows, links, tests, hosted] = await Promise.all([
    db.selectFrom('evidence').selectAll().where('organization_id', '=', org).orderBy('id').execute(),
    db
      .selectFrom('attachments')
      .selectAll()
      .where('organization_id', '=', org)
      .where('url', 'is not', null)
      .where('blob_key', 'is', null)
      .orderBy('evidence_id')
      .orderBy('evidence_date', 'desc')
      .orderBy('id')
      .execute(),
    db.selectFrom('evidence_tests').select(['evidence_id', 'test_id']).where('organization_id', '=', org).execute(),
    db
      .selectFrom('attachments')
      .select((eb) => ['evidence_id', eb.fn.countAll<number>().as('n')])
      .where('organization_id', '=', org)
      .where((eb) => eb.or([eb('url', 'is', null), eb('blob_key', 'is not', null)]))
      .groupBy('evidence_id')
      .execute(),
  ]);
  return {
    rows,
    links,
    tests: tests.map((r) => ({ evidenceId: r.evidence_id, testId: r.test_id })),
    hostedCounts: new Map(hosted.map((r) => [r.evidence_id, Number(r.n)])),
  };
}

export async function insertEvidenceRows(db: Db, trx: Q, organizationId: string, rows: readonly EvidenceColumns[]): Promise<void> {
  await insertRows(
    db,
    trx,
    'evidence',
    rows.map((r) => ({ ...r, organization_id: organizationId })),
  );
}

/** Sets every column of one record (the apply writes a changed record whole). */
export async function updateEvidenceRow(trx: Q, organizationId: string, row: EvidenceColumns): Promise<void> {
  const { id, ...columns } = row;
  await trx.updateTable('evidence').set(columns).where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

/** Removes the external links of the given records; hosted files are never touched. */
export async function deleteLinkAttachments(trx: Q, organizationId: string, evidenceIds: readonly string[]): Promise<void> {
  for (const ids of idChunks(evidenceIds)) {
    await trx
      .deleteFrom('attachments')
      .where('organization_id', '=', organizationId)
      .where('evidence_id', 'in', ids)
      .where('url', 'is not', null)
      .where('blob_key', 'is', null)
      .execute();
  }
}

export async function insertLinkAttachments(db: Db, trx: Q, organizationId: string, rows: readonly LinkAttachmentColumns[]): Promise<void> {
  await insertRows(
    db,
    trx,
    'attachments',
    rows.map((r) => ({ ...r, organization_id: organizationId })),
  );
}

export async function insertEvidenceTests(
  db: Db,
  trx: Q,
  organizationId: string,
  links: readonly { evidenceId: string; testId: string }[],
): Promise<void> {
  await insertRows(
    db,
    trx,
    'evidence_tests',
    links.map((l) => ({ organization_id: organizationId, evidence_id: l.evidenceId, test_id: l.testId })),
  );
}

/** Removes the test links of the given evidence records, or (by test) of the given tests. */
export async function deleteEvidenceTests(
  trx: Q,
  organizationId: string,
  by: 'evidence_id' | 'test_id',
  ids: readonly string[],
): Promise<void> {
  for (const part of idChunks(ids)) {
    await trx.deleteFrom('evidence_tests').where('organization_id', '=', organizationId).where(by, 'in', part).execute();
  }
}
