// A test's own child rows as an apply writes them (the row and its links are the kind writer's,
// src/domain/kinds/row-writer.ts): its applications, its flagged resources with their assignees
// and entities, and its scan history, each rewritten whole for a test whose list changed.
import { changedList } from '../kinds/list-changes.ts';
import type { RecordChange, WriteContext } from '../kinds/kind.ts';
import { derivedRecordId } from '../kinds/keys.ts';
import type { ProgramTest } from './program-schema.ts';
import { deleteWhereIn, insertRows, selectAll } from '../../storage/db/repositories/program/program-writes.ts';
import type { Row } from '../../storage/db/bulk-insert.ts';

type Change = RecordChange<ProgramTest>;

export const resourceRowId = (testId: string, i: number) => `${testId}:resource:${String(i).padStart(5, '0')}`;
export const scanRowId = (testId: string, i: number) => `${testId}:scan:${String(i).padStart(5, '0')}`;

/** The row IDs of the flagged resources of the given tests (their assignees and entities hang from them). */
async function selectRowIds(w: WriteContext, testIds: readonly string[]): Promise<string[]> {
  const wanted = new Set(testIds);
  return (await selectAll(w.trx, 'test_resources', w.organizationId)).filter((r) => wanted.has(r.test_id)).map((r) => r.id);
}

/** Deletes the flagged resources of the given tests, with their links. */
export async function deleteResources(w: WriteContext, testIds: readonly string[]): Promise<void> {
  if (testIds.length === 0) return;
  const { trx, organizationId: org } = w;
  const rows = await selectRowIds(w, testIds);
  await deleteWhereIn(trx, 'subject_people', org, 'subject_id', rows, 'test_resource');
  await deleteWhereIn(trx, 'subject_entities', org, 'subject_id', rows, 'test_resource');
  await deleteWhereIn(trx, 'test_resources', org, 'test_id', testIds);
}

export async function writeTestChildren(w: WriteContext, upserts: readonly Change[]): Promise<void> {
  await deleteResources(
    w,
    upserts.filter((c) => c.action === 'update' && changedList(c, 'resources')).map((c) => c.id),
  );
  await writeApplications(w, upserts);
  await writeResources(w, upserts);
  await writeHistory(w, upserts);
}

/** Applications: by name; a name the organization has no application for gets one. */
async function writeApplications(w: WriteContext, upserts: readonly Change[]): Promise<void> {
  const { db, trx, organizationId: org } = w;
  const appsChanged = upserts.filter((c) => changedList(c, 'applications'));
  if (appsChanged.length === 0) return;
  const known = new Map<string, string>();
  for (const a of await selectAll(trx, 'applications', org, ['name', 'id'])) if (!known.has(a.name)) known.set(a.name, a.id);
  const newApps: Row<'applications'>[] = [];
  for (const c of appsChanged)
    for (const name of c.after!.applications ?? [])
      if (!known.has(name)) {
        const id = derivedRecordId(org, 'application', name);
        known.set(name, id);
        newApps.push({ id, organization_id: org, name });
      }
  await insertRows(db, trx, 'applications', newApps);
  await deleteWhereIn(
    trx,
    'test_applications',
    org,
    'test_id',
    appsChanged.filter((c) => c.action === 'update').map((c) => c.id),
  );
  await insertRows(
    db,
    trx,
    'test_applications',
    appsChanged.flatMap((c) =>
      (c.after!.applications ?? []).map((name) => ({ organization_id: org, test_id: c.id, application_id: known.get(name)! })),
    ),
  );
}

/**
 * Flagged resources and their links, whole per test. Not in a plan (w.plan): no rule and no later
 * kind reads them, and at 10,000 per test they were nearly all of a large plan's time in the write
 * lock (issue 36: 7-12 s of a 51 MiB plan's transaction).
 */
async function writeResources(w: WriteContext, upserts: readonly Change[]): Promise<void> {
  const { db, trx, organizationId: org, keys } = w;
  const resourceRows: Row<'test_resources'>[] = [];
  const resourcePeople: Row<'subject_people'>[] = [];
  const resourceEntities: Row<'subject_entities'>[] = [];
  for (const c of w.plan ? [] : upserts.filter((u) => changedList(u, 'resources'))) {
    (c.after!.resources ?? []).forEach((r, i) => {
      const id = resourceRowId(c.id, i);
      resourceRows.push({
        id,
        organization_id: org,
        test_id: c.id,
        resource_id: r.resourceId,
        name: r.name,
        status: r.status,
        last_scanned_at: r.lastScannedAt ?? null,
        first_detected: r.firstDetected ?? null,
        tags: JSON.stringify(r.tags ?? []),
        region: r.region ?? null,
        service: r.service ?? null,
        account_id: r.accountID ?? null,
        environment: r.environment ?? null,
        link: r.link ?? null,
        description: r.description ?? null,
      });
      (r.assignees ?? []).forEach((k, position) => {
        resourcePeople.push({
          organization_id: org,
          subject_type: 'test_resource',
          subject_id: id,
          person_id: keys.idOf('person', k),
          role: 'assignee',
          is_primary: position === 0,
          position,
        });
      });
      for (const k of r.entities ?? [])
        resourceEntities.push({ organization_id: org, subject_type: 'test_resource', subject_id: id, entity_id: keys.idOf('entity', k) });
    });
  }
  await insertRows(db, trx, 'test_resources', resourceRows);
  await insertRows(db, trx, 'subject_people', resourcePeople);
  await insertRows(db, trx, 'subject_entities', resourceEntities);
}

async function writeHistory(w: WriteContext, upserts: readonly Change[]): Promise<void> {
  const { db, trx, organizationId: org } = w;
  const historyChanged = upserts.filter((c) => changedList(c, 'history'));
  await deleteWhereIn(
    trx,
    'test_history',
    org,
    'test_id',
    historyChanged.filter((c) => c.action === 'update').map((c) => c.id),
  );
  await insertRows(
    db,
    trx,
    'test_history',
    historyChanged.flatMap((c) =>
      (c.after!.history ?? []).map((h, i) => ({
        id: scanRowId(c.id, i),
        organization_id: org,
        test_id: c.id,
        scanned_on: h.scannedOn,
        status: h.status,
      })),
    ),
  );
}
