// An evidence record as GET /v1/evidence/{id} shows it, built from its program entry: what an
// apply's `evidence.updated` names (the evidence kind, ./program-kind.ts).
import { linkRowId } from './program-children.ts';
import type { RecordChange, WriteContext } from '../kinds/kind.ts';
import type { ProgramEvidence } from './program-schema.ts';
import type { NameLookups } from '../../storage/db/repositories/program/program-names.ts';
import { listAttachments } from '../../storage/db/repositories/artifacts/evidence.ts';
import { approversOf, assigneesOf, compareStrings, entitiesOf, mappingsOf, personStampOf } from '../artifacts/program-shapes.ts';
import { testStatus } from '../compliance/rules.ts';
import { setPresent } from '../set-present.ts';
import { isDeepStrictEqual } from 'node:util';

interface AttachmentShape {
  displayName: string;
  type: string;
  url?: string;
  note?: string;
  addedBy?: { name: string; email: string };
  addedOn: number;
  updatedBy?: { name: string; email: string };
  updatedOn?: number;
  evidenceDate: number;
  periodStart?: number;
  periodEnd?: number;
  /** orders attachments of one date as the read API does (by row ID) */
  sortId: string;
}

/** The files the service hosts for a record, in the read API's shape (read only when its attachments show: status or links changed). */
export async function hostedFiles(
  w: WriteContext,
  id: string,
  lookups: NameLookups,
  c: RecordChange<ProgramEvidence>,
): Promise<AttachmentShape[]> {
  if (c.before!.status === c.after!.status && isDeepStrictEqual(c.before!.attachments, c.after!.attachments)) return [];
  const rows = await listAttachments(w.trx, w.organizationId, id);
  return rows
    .filter((a) => a.url === null)
    .map((a, i) => {
      const s: AttachmentShape = {
        displayName: a.displayName,
        type: a.type,
        addedOn: a.addedOn,
        evidenceDate: a.evidenceDate,
        sortId: `~${i}`,
      };
      setPresent(s, 'note', a.note);
      setPresent(s, 'addedBy', personStampOf(lookups, a.addedBy));
      setPresent(s, 'updatedBy', personStampOf(lookups, a.updatedBy));
      setPresent(s, 'updatedOn', a.updatedOn);
      setPresent(s, 'periodStart', a.periodStart);
      setPresent(s, 'periodEnd', a.periodEnd);
      return s;
    });
}

/**
 * The record as GET /v1/evidence/{id} shows it with every expansion (`isCurrentPeriod` aside: it
 * depends on the clock), plus `evidenceCollectionMethod` (a list field): the fields an
 * `evidence.updated` names. Built from the entry and the names read once, not from each record.
 */
export function evidenceShape(
  id: string,
  e: ProgramEvidence,
  w: WriteContext,
  lookups: NameLookups,
  hosted: readonly AttachmentShape[],
): Record<string, unknown> {
  const idOf = (record: string, key: string) => w.keys.idOf(record, key);
  const personId = (key: string | null | undefined) => (key == null ? null : idOf('person', key));
  const assignees = e.assignees ?? [];
  const status = e.status ?? 'not_uploaded';
  const shape: Record<string, unknown> = { evidenceId: id, evidenceName: e.name, status };
  setPresent(shape, 'department', e.department);
  Object.assign(shape, {
    assignees: assigneesOf(
      lookups,
      assignees.map((a) => idOf('person', a.person)),
      (i) => assignees[i].isPrimary ?? false,
    ),
    approvers: approversOf(
      lookups,
      (e.approvers ?? []).map((k) => idOf('person', k)),
    ),
    isRelevant: e.isRelevant ?? true,
    nextReviewDate: e.nextReviewDate ?? null,
    entities: entitiesOf(
      lookups,
      (e.entities ?? []).map((k) => idOf('entity', k)),
    ),
    gapStatus: e.gapStatus ?? 'no_gaps',
    gapCount: (e.gaps ?? []).length,
    ...mappingsOf(
      lookups,
      (e.requirements ?? []).map((k) => idOf('requirement', k)),
      (e.controls ?? []).map((k) => idOf('control', k)),
    ),
  });
  setPresent(shape, 'notRelevantReason', e.notRelevantReason);
  setPresent(shape, 'effortEstimate', e.effortEstimate);
  setPresent(shape, 'recurrence', e.recurrence);
  setPresent(shape, 'source', e.source);
  setPresent(shape, 'evidenceCollectionMethod', e.evidenceCollectionMethod);
  setPresent(shape, 'addedBy', personStampOf(lookups, personId(e.addedBy)));
  shape.addedOn = e.addedOn;
  setPresent(shape, 'lastModifiedBy', personStampOf(lookups, personId(e.lastModifiedBy)));
  shape.modifiedOn = e.modifiedOn ?? null;
  setPresent(shape, 'evidenceRequirementText', e.requirementText);
  setPresent(shape, 'revisionRequestedBy', personStampOf(lookups, personId(e.revisionRequestedBy)));
  setPresent(shape, 'revisionRequestedOn', e.revisionRequestedOn);
  setPresent(shape, 'rejectionReason', e.rejectionReason);
  shape.mappedTests = (e.tests ?? [])
    .flatMap((k) => {
      const testId = idOf('test', k);
      const t = lookups.tests.get(testId);
      return t ? [{ testId, testName: t.name, status: testStatus(t.result, t.integrationFailing) }] : [];
    })
    .sort((a, b) => compareStrings(a.testName, b.testName) || compareStrings(a.testId, b.testId));
  shape.gaps = e.gaps ?? [];
  const links: AttachmentShape[] = (e.attachments ?? []).map((l, i) => {
    const s: AttachmentShape = {
      displayName: l.displayName,
      type: l.type ?? 'link',
      addedOn: l.addedOn ?? w.now,
      evidenceDate: l.evidenceDate,
      sortId: linkRowId(id, i),
    };
    s.url = l.url;
    setPresent(s, 'note', l.note);
    setPresent(s, 'addedBy', personStampOf(lookups, personId(l.addedBy)));
    setPresent(s, 'updatedBy', personStampOf(lookups, personId(l.updatedBy)));
    setPresent(s, 'updatedOn', l.updatedOn);
    setPresent(s, 'periodStart', l.periodStart);
    setPresent(s, 'periodEnd', l.periodEnd);
    return s;
  });
  shape.attachments =
    status === 'not_uploaded'
      ? []
      : [...hosted, ...links]
          .sort((a, b) => b.evidenceDate - a.evidenceDate || compareStrings(a.sortId, b.sortId))
          .map(({ sortId: _, ...a }) => a);
  shape.tickets = (e.tickets ?? []).map((t) => ({ ticketId: t.ticketId, source: t.source, url: t.url }));
  return shape;
}
