// An evidence record's own child rows as an apply writes them (the row and its links are the kind
// writer's, src/domain/kinds/row-writer.ts): the tests it links and its external links.
import { changedList } from '../kinds/list-changes.ts';
import { refreshStaleAt } from '../../storage/db/repositories/service/time-due.ts';
import type { RecordChange, WriteContext } from '../kinds/kind.ts';
import type { ProgramEvidence } from './program-schema.ts';
import {
  deleteEvidenceTests,
  deleteLinkAttachments,
  insertEvidenceTests,
  insertLinkAttachments,
  type LinkAttachmentColumns,
} from '../../storage/db/repositories/artifacts/evidence-program.ts';

export const linkRowId = (evidenceId: string, index: number) => `${evidenceId}:link:${String(index).padStart(4, '0')}`;

export /** An evidence record's tests and external links, each list rewritten whole when it changed, and when time makes it stale. */
async function writeTestsAndLinks(w: WriteContext, upserts: readonly RecordChange<ProgramEvidence>[]): Promise<void> {
  const { db, trx, organizationId: org, keys } = w;
  const tests: { evidenceId: string; testId: string }[] = [];
  const testsReplaced: string[] = [];
  const linksReplaced: string[] = [];
  const links: LinkAttachmentColumns[] = [];
  for (const c of upserts) {
    const e = c.after!;
    if (changedList(c, 'tests')) {
      if (c.action === 'update') testsReplaced.push(c.id);
      for (const k of e.tests ?? []) tests.push({ evidenceId: c.id, testId: keys.idOf('test', k) });
    }
    if (changedList(c, 'attachments')) {
      if (c.action === 'update') linksReplaced.push(c.id);
      (e.attachments ?? []).forEach((l, i) => {
        links.push({
          id: linkRowId(c.id, i),
          evidence_id: c.id,
          display_name: l.displayName,
          type: l.type ?? 'link',
          url: l.url,
          note: l.note ?? null,
          blob_key: null,
          size_bytes: null,
          sha256: null,
          upload_id: null,
          evidence_date: l.evidenceDate,
          period_start: l.periodStart ?? null,
          period_end: l.periodEnd ?? null,
          added_by: l.addedBy == null ? null : keys.idOf('person', l.addedBy),
          added_on: l.addedOn ?? w.now,
          updated_by: l.updatedBy == null ? null : keys.idOf('person', l.updatedBy),
          updated_on: l.updatedOn ?? null,
        });
      });
    }
  }
  await deleteEvidenceTests(trx, org, 'evidence_id', testsReplaced);
  await insertEvidenceTests(db, trx, org, tests);
  await deleteLinkAttachments(trx, org, linksReplaced);
  await insertLinkAttachments(db, trx, org, links);
  // When time makes each record stale follows its attachments and recurrence (src/domain/time/due.ts):
  // kept for every record whose links or recurrence this apply wrote.
  const timed = upserts.filter(
    (c) => c.action === 'create' || changedList(c, 'attachments') || c.before!.recurrence !== c.after!.recurrence,
  );
  if (timed.length > 0)
    await refreshStaleAt(
      trx,
      org,
      timed.map((c) => c.id),
    );
}
