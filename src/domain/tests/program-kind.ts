// Tests (automated and cloud) in a program document (issue 25; the entry is ./program-schema.ts).
// A test's ID is `test_<key>_<organization tag>` (the demo's form), so a document's key is the
// slug of the ID and a demo test exports with its slug. Read whole per organization in a fixed
// number of statements; an apply writes the tests that changed, and of those only the parts that
// changed (the row, applications, each kind of link, flagged resources, history).
//
// Events are the ones a pushed result or a move records for the same change: `test.status_changed`
// when the status GET computes changes, `test.updated` with the changed fields of
// GET /v1/tests/{id} (every expansion, flagged resources of every status) for anything else.
// Created and deleted tests have no event type of their own; their effects on controls and
// frameworks are computed by the pipeline.
import { changedList, group } from '../program/list-changes.ts';
import { isDeepStrictEqual } from 'node:util';
import type { ProgramKind, Reference, WriteContext } from '../program/kind.ts';
import { changesAny, createdStamps, mergeEntry, sorted } from '../program/normalize.ts';
import { derivedRecordId } from '../program/keys.ts';
import { requirementKeys, testIdFor, testKeyOf } from '../program/reference-keys.ts';
import { ProgramTest, type ProgramTestResource, type ProgramTestScan } from './program-schema.ts';
import { deleteWhereIn, insertRows, selectAll, selectLinks, updateRow } from '../../storage/db/repositories/program/program-writes.ts';
import {
  controlsByArtifact,
  entitiesBySubject,
  peopleBySubject,
  replaceArtifactMappings,
  replaceSubjectLinks,
  requirementsByArtifact,
  risksBySubject,
  ticketsBySubject,
  type PersonLink,
} from '../../storage/db/repositories/program/program-links.ts';
import type { NameLookups } from '../../storage/db/repositories/program/program-names.ts';
import type { Row } from '../../storage/db/bulk-insert.ts';
import { assigneesOf, approversOf, compareStrings, entitiesOf, mappingsOf, risksOf } from '../artifacts/program-shapes.ts';
import { testStatus, type TestStatus } from '../compliance/rules.ts';
import { changedFields } from '../events/changes.ts';
import type { NewEvent } from '../events/record.ts';
import type { FieldIssue } from '../../shared/errors.ts';
import { setPresent } from '../set-present.ts';

type Resource = ProgramTestResource;
type Scan = ProgramTestScan;

const FIELDS = [
  'name',
  'kind',
  'result',
  'integrationFailing',
  'applications',
  'description',
  'remediation',
  'notes',
  'effortEstimate',
  'ignoreReason',
  'lastScannedOn',
  'assignees',
  'entities',
  'controls',
  'requirements',
  'risks',
  'tickets',
  'resources',
  'history',
  'addedOn',
  'modifiedOn',
] as const satisfies readonly (keyof ProgramTest)[];

const ROW_FIELDS = [
  'name',
  'kind',
  'result',
  'integrationFailing',
  'description',
  'remediation',
  'notes',
  'effortEstimate',
  'ignoreReason',
  'lastScannedOn',
  'addedOn',
  'modifiedOn',
] as const;

/** Sets a field to its value, or to null when it has none: an export writes every field. */
const nullable = <T extends object, K extends keyof T>(target: T, key: K, value: T[K] | null | undefined) => {
  target[key] = (value ?? null) as T[K];
};

/** Who and when: they change with every change, so on their own they are no update. */
const STAMPS: ReadonlySet<string> = new Set(['addedBy', 'addedOn', 'lastModifiedBy', 'modifiedOn']);

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

function reorder(e: ProgramTest): ProgramTest {
  const out: Record<string, unknown> = { key: e.key };
  for (const f of FIELDS) {
    const v = e[f];
    if (v === undefined) continue;
    out[f] = v;
  }
  return out as ProgramTest;
}

const RESOURCE_FIELDS = [
  'resourceId',
  'name',
  'status',
  'lastScannedAt',
  'firstDetected',
  'assignees',
  'tags',
  'region',
  'service',
  'accountID',
  'environment',
  'entities',
  'link',
  'description',
] as const satisfies readonly (keyof Resource)[];

/** A resource in the normal form: fields in one order, no empty lists, entities sorted. */
function normalResource(r: Resource): Resource {
  const out: Record<string, unknown> = {};
  for (const f of RESOURCE_FIELDS) {
    let v = r[f];
    if (v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (f === 'entities') v = sorted(v as string[]);
    out[f] = v;
  }
  return out as Resource;
}

/** Flagged resources in the read API's order: by name, then resource ID (ties keep the document's order). */
const resourceOrder = (resources: readonly Resource[]): Resource[] =>
  resources
    .map((r, i) => ({ r, i }))
    .sort((a, b) => compareStrings(a.r.name, b.r.name) || compareStrings(a.r.resourceId, b.r.resourceId) || a.i - b.i)
    .map((x) => normalResource(x.r));

const historyOrder = (history: readonly Scan[]): Scan[] =>
  history
    .map((h, i) => ({ h, i }))
    .sort((a, b) => a.h.scannedOn - b.h.scannedOn || a.i - b.i)
    .map((x) => ({ scannedOn: x.h.scannedOn, status: x.h.status }));

/** Row IDs that keep the document's order where the read API orders by row ID. */
const resourceRowId = (testId: string, i: number) => `${testId}:resource:${String(i).padStart(5, '0')}`;
const scanRowId = (testId: string, i: number) => `${testId}:scan:${String(i).padStart(5, '0')}`;
const ticketRowId = (testId: string, i: number) => `${testId}:ticket:${String(i).padStart(4, '0')}`;

function rowColumns(e: ProgramTest, w: WriteContext) {
  return {
    kind: e.kind ?? 'automated',
    name: e.name,
    result: e.result ?? 'passing',
    integration_failing: e.integrationFailing ?? false,
    description: e.description ?? null,
    remediation: e.remediation ?? null,
    notes: e.notes ?? null,
    effort_estimate: e.effortEstimate ?? null,
    ignore_reason: e.ignoreReason ?? null,
    last_scanned_on: e.lastScannedOn ?? null,
    added_on: e.addedOn ?? w.now,
    modified_on: e.modifiedOn ?? null,
  };
}

export const testsKind: ProgramKind<ProgramTest> = {
  name: 'tests',
  record: 'test',
  resources: ['test'],
  links: { controls: 'control', requirements: 'framework' },
  dataKinds: ['tests', 'controls', 'evidence'],
  schema: ProgramTest,
  deriveId: testIdFor,
  touchesCompliance: changesAny<ProgramTest>(['result', 'integrationFailing', 'kind', 'controls', 'requirements']),

  async read({ q, organizationId: org, keys }) {
    const [
      tests,
      applications,
      testApplications,
      resources,
      history,
      people,
      entities,
      tickets,
      risks,
      requirements,
      controls,
      requirementKey,
    ] = await Promise.all([
      selectAll(q, 'tests', org),
      selectAll(q, 'applications', org),
      selectAll(q, 'test_applications', org),
      selectAll(q, 'test_resources', org, ['test_id', 'name', 'resource_id', 'id']),
      selectAll(q, 'test_history', org, ['test_id', 'scanned_on', 'id']),
      peopleBySubject(q, org, 'test'),
      entitiesBySubject(q, org, 'test'),
      ticketsBySubject(q, org, 'test'),
      risksBySubject(q, org, 'test'),
      requirementsByArtifact(q, org, 'test'),
      controlsByArtifact(q, org, 'test'),
      requirementKeys(q, org, keys),
    ]);
    const [resourcePeople, resourceEntities] = await Promise.all([
      selectLinks(q, 'subject_people', org, 'test_resource', ['subject_id', 'position']),
      entitiesBySubject(q, org, 'test_resource'),
    ]);
    const appName = new Map(applications.map((a) => [a.id, a.name]));
    const appsOf = group(testApplications, (r) => r.test_id);
    const resourcesOf = group(resources, (r) => r.test_id);
    const historyOf = group(history, (r) => r.test_id);
    const peopleOfResource = group(resourcePeople, (r) => r.subject_id);
    const person = (id: string) => keys.keyOf('person', id);

    const out = tests
      .map((t) => {
        const key = testKeyOf(keys, t.id);
        const mine = people.get(t.id) ?? [];
        const entry: ProgramTest = {
          key,
          name: t.name,
          kind: t.kind as ProgramTest['kind'],
          result: t.result as ProgramTest['result'],
          integrationFailing: Boolean(t.integration_failing),
          applications: sorted((appsOf.get(t.id) ?? []).flatMap((a) => appName.get(a.application_id) ?? [])),
          assignees: mine
            .filter((p) => p.role === 'assignee')
            .map((p) => (p.isPrimary ? { person: person(p.personId), isPrimary: true } : { person: person(p.personId) })),
          entities: sorted((entities.get(t.id) ?? []).map((id) => keys.keyOf('entity', id))),
          controls: sorted((controls.get(t.id) ?? []).map((id) => keys.keyOf('control', id))),
          requirements: sorted((requirements.get(t.id) ?? []).map(requirementKey)),
          risks: sorted((risks.get(t.id) ?? []).map((id) => keys.keyOf('risk', id))),
          tickets: tickets.get(t.id) ?? [],
          resources: (resourcesOf.get(t.id) ?? []).map((r) => {
            const resource: Resource = { resourceId: r.resource_id, name: r.name, status: r.status as Resource['status'] };
            setPresent(resource, 'lastScannedAt', num(r.last_scanned_at));
            setPresent(resource, 'firstDetected', num(r.first_detected));
            resource.assignees = (peopleOfResource.get(r.id) ?? []).filter((p) => p.role === 'assignee').map((p) => person(p.person_id));
            resource.tags = JSON.parse(r.tags) as string[];
            setPresent(resource, 'region', r.region);
            setPresent(resource, 'service', r.service);
            setPresent(resource, 'accountID', r.account_id);
            setPresent(resource, 'environment', r.environment);
            resource.entities = (resourceEntities.get(r.id) ?? []).map((id) => keys.keyOf('entity', id));
            setPresent(resource, 'link', r.link);
            setPresent(resource, 'description', r.description);
            return normalResource(resource);
          }),
          history: (historyOf.get(t.id) ?? []).map((h) => ({ scannedOn: Number(h.scanned_on), status: h.status as Scan['status'] })),
          addedOn: Number(t.added_on),
          modifiedOn: num(t.modified_on),
        };
        nullable(entry, 'description', t.description);
        nullable(entry, 'remediation', t.remediation);
        nullable(entry, 'notes', t.notes);
        nullable(entry, 'effortEstimate', t.effort_estimate as ProgramTest['effortEstimate']);
        nullable(entry, 'ignoreReason', t.ignore_reason);
        nullable(entry, 'lastScannedOn', num(t.last_scanned_on));
        return { id: t.id, entry: reorder(entry) };
      })
      .sort((a, b) => compareStrings(a.entry.name, b.entry.name) || compareStrings(a.id, b.id));
    return out;
  },

  normalize(entry, current, ctx) {
    const { addedOn, modifiedOn } = createdStamps(ctx);
    const merged = mergeEntry(
      entry,
      current,
      {
        kind: 'automated',
        result: 'passing',
        integrationFailing: false,
        applications: [],
        description: null,
        remediation: null,
        notes: null,
        effortEstimate: null,
        ignoreReason: null,
        lastScannedOn: null,
        assignees: [],
        entities: [],
        controls: [],
        requirements: [],
        risks: [],
        tickets: [],
        resources: [],
        history: [],
        addedOn,
        modifiedOn,
      },
      FIELDS,
    );
    for (const f of ['applications', 'entities', 'controls', 'requirements', 'risks'] as const) merged[f] = sorted(merged[f]);
    if (entry.assignees !== undefined)
      merged.assignees = entry.assignees.map((a) => (a.isPrimary ? { person: a.person, isPrimary: true } : { person: a.person }));
    if (entry.resources !== undefined) merged.resources = resourceOrder(entry.resources);
    if (entry.history !== undefined) merged.history = historyOrder(entry.history);
    return reorder(merged);
  },
  stampChange: (normalized, given, ctx) => {
    const out = { ...normalized };
    if (given.modifiedOn === undefined) out.modifiedOn = ctx.now;
    return reorder(out);
  },

  check(entry, pointer, issues) {
    repeated(
      entry.assignees?.map((a) => a.person),
      `${pointer}/assignees`,
      'lists this person twice',
      issues,
      '/person',
    );
    repeated(
      entry.tickets?.map((t) => `${t.source}\u0000${t.ticketId}`),
      `${pointer}/tickets`,
      'lists this ticket twice',
      issues,
    );
    entry.resources?.forEach((r, i) => {
      repeated(r.assignees, `${pointer}/resources/${i}/assignees`, 'lists this person twice', issues);
    });
  },

  references(entry, pointer) {
    const refs: Reference[] = [];
    const many = (record: string, list: readonly string[] | undefined, at: string) => {
      list?.forEach((key, i) => {
        refs.push({ record, key, pointer: `${pointer}/${at}/${i}` });
      });
    };
    entry.assignees?.forEach((a, i) => {
      refs.push({ record: 'person', key: a.person, pointer: `${pointer}/assignees/${i}/person` });
    });
    many('entity', entry.entities, 'entities');
    many('control', entry.controls, 'controls');
    many('requirement', entry.requirements, 'requirements');
    many('risk', entry.risks, 'risks');
    entry.resources?.forEach((r, i) => {
      many('person', r.assignees, `resources/${i}/assignees`);
      many('entity', r.entities, `resources/${i}/entities`);
    });
    return refs;
  },

  async write(w, changes) {
    const { db, trx, organizationId: org, keys } = w;
    const created = changes.filter((c) => c.action === 'create');
    const updated = changes.filter((c) => c.action === 'update');
    const deleted = changes.filter((c) => c.action === 'delete').map((c) => c.id);

    const resourcesReplaced = updated.filter((c) => changedList(c, 'resources')).map((c) => c.id);
    const goneResources = [...deleted, ...resourcesReplaced];
    if (goneResources.length > 0) {
      const rows = await selectRowIds(w, goneResources);
      await deleteWhereIn(trx, 'subject_people', org, 'subject_id', rows, 'test_resource');
      await deleteWhereIn(trx, 'subject_entities', org, 'subject_id', rows, 'test_resource');
      await deleteWhereIn(trx, 'test_resources', org, 'test_id', goneResources);
    }
    if (deleted.length > 0) {
      for (const table of ['subject_people', 'subject_entities', 'tickets', 'risk_links'] as const)
        await deleteWhereIn(trx, table, org, 'subject_id', deleted, 'test');
      await deleteWhereIn(trx, 'artifact_requirements', org, 'artifact_id', deleted);
      await deleteWhereIn(trx, 'control_artifacts', org, 'artifact_id', deleted);
      await deleteWhereIn(trx, 'evidence_tests', org, 'test_id', deleted);
      await deleteWhereIn(trx, 'test_applications', org, 'test_id', deleted);
      await deleteWhereIn(trx, 'test_history', org, 'test_id', deleted);
      await deleteWhereIn(trx, 'tests', org, 'id', deleted);
    }

    await insertRows(
      db,
      trx,
      'tests',
      created.map((c) => ({ id: c.id, organization_id: org, ...rowColumns(c.after!, w) })),
    );
    for (const c of updated)
      if (ROW_FIELDS.some((f) => !isDeepStrictEqual(c.before![f], c.after![f])))
        await updateRow(trx, 'tests', org, c.id, rowColumns(c.after!, w));

    const upserts = [...created, ...updated];

    // Applications: by name; a name the organization has no application for gets one.
    const appsChanged = upserts.filter((c) => changedList(c, 'applications'));
    if (appsChanged.length > 0) {
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

    const people = new Map<string, PersonLink[]>();
    const entities = new Map<string, string[]>();
    const tickets = new Map<string, { ticketId: string; source: string; url: string }[]>();
    const risks = new Map<string, string[]>();
    const requirements = new Map<string, string[]>();
    const controls = new Map<string, string[]>();
    for (const c of upserts) {
      const e = c.after!;
      if (changedList(c, 'assignees'))
        people.set(
          c.id,
          (e.assignees ?? []).map((a) => ({
            personId: keys.idOf('person', a.person),
            role: 'assignee' as const,
            isPrimary: a.isPrimary ?? false,
          })),
        );
      if (changedList(c, 'entities'))
        entities.set(
          c.id,
          (e.entities ?? []).map((k) => keys.idOf('entity', k)),
        );
      if (changedList(c, 'tickets')) tickets.set(c.id, e.tickets ?? []);
      if (changedList(c, 'risks'))
        risks.set(
          c.id,
          (e.risks ?? []).map((k) => keys.idOf('risk', k)),
        );
      if (changedList(c, 'requirements'))
        requirements.set(
          c.id,
          (e.requirements ?? []).map((k) => keys.idOf('requirement', k)),
        );
      if (changedList(c, 'controls'))
        controls.set(
          c.id,
          (e.controls ?? []).map((k) => keys.idOf('control', k)),
        );
    }
    const fresh = new Set(created.map((c) => c.id));
    await replaceSubjectLinks(db, trx, org, 'test', { people, entities, tickets, risks }, ticketRowId, fresh);
    await replaceArtifactMappings(db, trx, org, 'test', { requirements, controls }, fresh);

    // Flagged resources and their links, whole per test. Not in a plan (w.plan): no rule and no
    // later kind reads them, and at 10,000 per test they were nearly all of a large plan's time
    // in the write lock (issue 36: 7-12 s of a 51 MiB plan's transaction).
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
  },

  async events(w, changes) {
    const updates = changes.filter((c) => c.action === 'update');
    if (updates.length === 0) return { events: [] };
    const lookups = await w.names();
    const events: NewEvent[] = [];
    for (const c of updates) {
      const { status: b, ...before } = testShape(c.id, c.before!, w, lookups);
      const { status: a, ...after } = testShape(c.id, c.after!, w, lookups);
      if (b !== a)
        events.push({
          type: 'test.status_changed',
          resourceId: c.id,
          occurredAt: w.now,
          data: { before: b as TestStatus, after: a as TestStatus },
        });
      const fieldChanges = changedFields(before, after);
      // as the moves do: an update event only when a field besides the stamps changed
      if (Object.keys(fieldChanges).some((f) => !STAMPS.has(f)))
        events.push({ type: 'test.updated', resourceId: c.id, occurredAt: w.now, data: { changes: fieldChanges } });
    }
    return { events };
  },
};

/** The row IDs of the flagged resources of the given tests (their assignees and entities hang from them). */
async function selectRowIds(w: WriteContext, testIds: readonly string[]): Promise<string[]> {
  const wanted = new Set(testIds);
  return (await selectAll(w.trx, 'test_resources', w.organizationId)).filter((r) => wanted.has(r.test_id)).map((r) => r.id);
}

function repeated(values: readonly string[] | undefined, at: string, message: string, issues: FieldIssue[], suffix = ''): void {
  const seen = new Set<string>();
  values?.forEach((v, i) => {
    if (seen.has(v)) issues.push({ field: `${at}/${i}${suffix}`, message });
    seen.add(v);
  });
}

/**
 * The test as GET /v1/tests/{id} shows it with every expansion and flagged resources of every
 * status: the fields a `test.updated` names. Built from the entry and the names read once.
 */
export function testShape(id: string, e: ProgramTest, w: WriteContext, lookups: NameLookups): Record<string, unknown> {
  const idOf = (record: string, key: string) => w.keys.idOf(record, key);
  const assignees = e.assignees ?? [];
  const shape: Record<string, unknown> = {
    testId: id,
    testName: e.name,
    status: testStatus(e.result ?? 'passing', e.integrationFailing ?? false),
    applications: (e.applications ?? []).map((name) => ({ name })),
    assignees: assigneesOf(
      lookups,
      assignees.map((a) => idOf('person', a.person)),
      (i) => assignees[i].isPrimary ?? false,
    ),
    entities: entitiesOf(
      lookups,
      (e.entities ?? []).map((k) => idOf('entity', k)),
    ),
    ...mappingsOf(
      lookups,
      (e.requirements ?? []).map((k) => idOf('requirement', k)),
      (e.controls ?? []).map((k) => idOf('control', k)),
    ),
    addedOn: e.addedOn,
    modifiedOn: e.modifiedOn ?? null,
    resources: (e.resources ?? []).map((r) => {
      const resource: Record<string, unknown> = { resourceId: r.resourceId, name: r.name, status: r.status };
      setPresent(resource, 'lastScannedAt', r.lastScannedAt);
      setPresent(resource, 'firstDetected', r.firstDetected);
      resource.assignees = approversOf(
        lookups,
        (r.assignees ?? []).map((k) => idOf('person', k)),
      );
      resource.tags = r.tags ?? [];
      setPresent(resource, 'region', r.region);
      setPresent(resource, 'service', r.service);
      setPresent(resource, 'accountID', r.accountID);
      setPresent(resource, 'environment', r.environment);
      resource.entities = entitiesOf(
        lookups,
        (r.entities ?? []).map((k) => idOf('entity', k)),
      );
      setPresent(resource, 'link', r.link);
      setPresent(resource, 'description', r.description);
      return resource;
    }),
    tickets: (e.tickets ?? []).map((t) => ({ ticketId: t.ticketId, source: t.source, url: t.url })),
    mappedRisks: risksOf(
      lookups,
      (e.risks ?? []).map((k) => idOf('risk', k)),
    ),
    testHistory: (e.history ?? []).map((h) => ({ scannedOn: h.scannedOn, status: h.status })),
  };
  setPresent(shape, 'description', e.description);
  setPresent(shape, 'remediation', e.remediation);
  setPresent(shape, 'lastScannedOn', e.lastScannedOn);
  setPresent(shape, 'effortEstimate', e.effortEstimate);
  setPresent(shape, 'notes', e.notes);
  setPresent(shape, 'ignoreReason', e.ignoreReason);
  return shape;
}
