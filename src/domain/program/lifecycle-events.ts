// The `<resource>.created` and `<resource>.deleted` events of an apply (issue 25: every change an
// apply makes records its events). A created record's event carries the record as its GET answers
// it with its default fields, built by the resource's own GET builder inside the apply's
// transaction after every write (so it shows the state the apply leaves); a deleted record's
// event carries its ID. Kinds without resource endpoints (entities, people, risks, custom fields)
// record none; findings' `vulnerability.created` is the kind's own (vulnerabilities/program-kind.ts).
import type { NewEvent } from '../events/record.ts';
import type { FrameworkProgress } from '../frameworks/schema.ts';
import { RESOURCES } from '../auth/scopes.ts';
import { buildControlDetail, preloadControlLinks } from '../controls/get.ts';
import { buildPolicyDetail } from '../policies/get.ts';
import { buildEvidenceDetail } from '../evidence/get.ts';
import { buildTestDetail, preloadTestLinks } from '../tests/get.ts';
import { loadLinksFrom } from '../artifacts/read.ts';
import { listPolicies } from '../../storage/db/repositories/artifacts/policies.ts';
import { listEvidence } from '../../storage/db/repositories/artifacts/evidence.ts';
import { listFrameworks } from '../../storage/db/repositories/compliance/frameworks.ts';
import { loadSubjectEntities } from '../../storage/db/repositories/links.ts';
import type { KeyedEntry, RecordChange, WriteContext } from '../kinds/kind.ts';
import type { ProgramKind } from './registry.ts';

/** The resource of each kind with created/deleted events, and the `data` property naming a deleted record's ID. */
const RESOURCE_OF: Partial<Record<string, { resource: string; idField: string; created: boolean }>> = {
  frameworks: { resource: 'framework', idField: 'frameworkId', created: true },
  controls: { resource: 'control', idField: 'controlId', created: true },
  policies: { resource: 'policy', idField: 'policyId', created: true },
  evidence: { resource: 'evidence', idField: 'evidenceId', created: true },
  tests: { resource: 'test', idField: 'testId', created: true },
  // a finding's creation is recorded by its kind (vulnerability.created)
  vulnerabilities: { resource: 'vulnerability', idField: 'vulnerabilityId', created: false },
};

/** Whether a kind's own events record its creations (findings' `vulnerability.created`), so they need the created entries. */
export const recordsOwnCreations = (kind: ProgramKind): boolean => RESOURCE_OF[kind.name]?.created === false;

/** IDs per statement when reading links of many records. */
const ID_CHUNK = 500;

/** The GET shape of a control needs the plan only for expansions; the default fields are the same under any plan. */
const EVERY_RESOURCE: ReadonlySet<string> = new Set(RESOURCES);

/** Created records whose events are built and handed over at once: what an apply holds of them. */
export const EVENT_CHUNK = 500;

/**
 * The created and deleted events of one kind's changes, handed to `record` a chunk at a time
 * (created records' GET shapes are read and built 500 at a time, so an apply of thousands never
 * holds them all): creations in the document's order, then deletions in the order the kind reads
 * its records (both stable from run to run). `progress` gives every framework's
 * complianceProgress after the apply (asked only when a framework was created).
 */
export async function lifecycleEvents(
  w: WriteContext,
  kind: ProgramKind,
  changes: readonly RecordChange<KeyedEntry>[],
  /** a change's entry as written (a created record's normalized entry, made again when asked: the pipeline does not keep it) */
  entryOf: (change: RecordChange<KeyedEntry>) => KeyedEntry,
  progress: () => Promise<ReadonlyMap<string, FrameworkProgress>>,
  record: (events: NewEvent[]) => Promise<void>,
): Promise<void> {
  const of = RESOURCE_OF[kind.name];
  if (!of) return;
  const created = of.created ? changes.filter((c) => c.action === 'create') : [];
  for (let i = 0; i < created.length; i += EVENT_CHUNK) {
    const chunk = created.slice(i, i + EVENT_CHUNK);
    const shapes = await createdShapes(w, of.resource, chunk, entryOf, progress);
    await record(
      chunk.map(
        (c) =>
          ({
            type: `${of.resource}.created`,
            resourceId: kind.publicId?.(c.id, c.key) ?? c.id,
            occurredAt: w.now,
            data: { [of.resource]: shapes.get(c.id) },
          }) as unknown as NewEvent,
      ),
    );
  }
  const deleted: NewEvent[] = [];
  for (const c of changes) {
    if (c.action !== 'delete') continue;
    const id = kind.publicId?.(c.id, c.key) ?? c.id;
    deleted.push({ type: `${of.resource}.deleted`, resourceId: id, occurredAt: w.now, data: { [of.idField]: id } } as unknown as NewEvent);
  }
  if (deleted.length > 0) await record(deleted);
}

/** The GET shape of each created record, by ID, read in the apply's transaction. */
async function createdShapes(
  w: WriteContext,
  resource: string,
  created: readonly RecordChange<KeyedEntry>[],
  entryOf: (change: RecordChange<KeyedEntry>) => KeyedEntry,
  progress: () => Promise<ReadonlyMap<string, FrameworkProgress>>,
): Promise<Map<string, unknown>> {
  const { trx, organizationId: org } = w;
  const ids = created.map((c) => c.id);
  const out = new Map<string, unknown>();
  if (resource === 'framework') {
    // As GET /v1/frameworks lists it (default fields): one read for all of them.
    const wanted = new Set(ids);
    const [rows, entities, progressById] = await Promise.all([
      listFrameworks(trx, org, {}),
      loadSubjectEntities(trx, org, 'framework'),
      progress(),
    ]);
    for (const row of rows) {
      if (!wanted.has(row.id)) continue;
      out.set(row.id, {
        frameworkId: row.id,
        frameworkName: row.name,
        entities: entities.get(row.id) ?? [],
        nextAuditDate: row.nextAuditDate,
        complianceProgress: progressById.get(row.id),
      });
    }
    return out;
  }
  if (resource === 'policy' || resource === 'evidence') {
    // Their rows and links read at once, then each GET shape built from them (no query).
    const wanted = new Set(ids);
    const needs = { mappings: true, people: true, tickets: false };
    if (resource === 'policy') {
      const [rows, links] = await Promise.all([listPolicies(trx, org, { ids }), loadLinksFrom(trx, org, 'policy', ids, needs)]);
      for (const row of rows) if (wanted.has(row.id)) out.set(row.id, await buildPolicyDetail(trx, org, row, [], links));
    } else {
      const [rows, links] = await Promise.all([listEvidence(trx, org, { ids }), loadLinksFrom(trx, org, 'evidence', ids, needs)]);
      for (const row of rows) if (wanted.has(row.id)) out.set(row.id, await buildEvidenceDetail(trx, org, row, [], w.now, links));
    }
    return out;
  }
  if (resource === 'test') {
    // Everything their default shape shows read once per chunk of 500, so no statement names more
    // IDs than an engine binds.
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      const chunk = ids.slice(i, i + ID_CHUNK);
      const links = await preloadTestLinks(trx, org, chunk, true);
      for (const id of chunk) out.set(id, await buildTestDetail(trx, org, { testId: id }, links));
    }
    return out;
  }
  // Controls: everything their default shape shows read once per chunk of 500.
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    const chunk = created.slice(i, i + ID_CHUNK);
    const people = new Set<string>();
    for (const c of chunk) {
      const entry = entryOf(c) as { addedBy?: string | null; lastModifiedBy?: string | null };
      for (const key of [entry.addedBy, entry.lastModifiedBy]) if (typeof key === 'string') people.add(w.keys.idOf('person', key));
    }
    const links = await preloadControlLinks(
      trx,
      org,
      chunk.map((c) => c.id),
      [...people],
      true,
    );
    for (const c of chunk) out.set(c.id, await buildControlDetail(trx, org, EVERY_RESOURCE, { controlId: c.id }, links));
  }
  return out;
}
