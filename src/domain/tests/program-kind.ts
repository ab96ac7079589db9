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
import { group } from '../kinds/list-changes.ts';
import type { NormalizeContext, ProgramKind, WriteContext } from '../kinds/kind.ts';
import type { RecordedKindEvents } from '../events/kind-events.ts';
import { changesAny, mergeEntry, sorted } from '../kinds/normalize.ts';
import { requirementKeys, testIdFor, testKeyOf } from '../kinds/reference-keys.ts';
import { ProgramTest, type ProgramTestResource, type ProgramTestScan } from './program-schema.ts';
import { selectAll, selectLinks } from '../../storage/db/repositories/program/program-writes.ts';
import { writeRowsAndLinks } from '../kinds/row-writer.ts';
import { deleteResources, writeTestChildren } from './program-children.ts';
import {
  controlsByArtifact,
  entitiesBySubject,
  peopleBySubject,
  requirementsByArtifact,
  risksBySubject,
  ticketsBySubject,
} from '../../storage/db/repositories/program/program-links.ts';
import type { NameLookups } from '../../storage/db/repositories/program/program-names.ts';
import { assigneesOf, approversOf, compareStrings, entitiesOf, mappingsOf, risksOf } from '../artifacts/program-shapes.ts';
import { testStatus } from '../compliance/rules.ts';
import { shapedUpdateEvents } from '../events/update-events.ts';
import {
  entryFields,
  assigneeEntry,
  assigneesOfLinks,
  fieldOrder,
  nullable,
  nullableColumns,
  nullDefaults,
  num,
} from '../kinds/entry-values.ts';
import { referenceList, repeated, repeatedAssignees, repeatedTickets } from '../kinds/entry-checks.ts';
import { setPresent } from '../set-present.ts';
import { isPacked, lazyField, withoutPacked } from '../kinds/packed-fields.ts';

type Resource = ProgramTestResource;
type Scan = ProgramTestScan;

/** The entry's fields, in the schema's order. */
const FIELDS = entryFields<ProgramTest>(ProgramTest);

const ROW_FIELDS = [
  'name',
  'kind',
  'result',
  'integrationFailing',
  'checks',
  'description',
  'remediation',
  'notes',
  'effortEstimate',
  'ignoreReason',
  'lastScannedOn',
  'addedOn',
  'modifiedOn',
] as const;

const reorder = fieldOrder<ProgramTest>(FIELDS);

/** The fields that hold null when the test has no value (their columns are named after them). */
const NULLABLE = ['description', 'remediation', 'notes', 'effortEstimate', 'ignoreReason', 'lastScannedOn'] as const;

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

/**
 * A resource in the normal form: fields in one order, no empty lists, entities sorted. One already
 * in it is itself, not a copy: a plan of tens of thousands of flagged resources otherwise held each
 * of them twice (issue 36, goal (d)).
 */
function normalResource(r: Resource): Resource {
  if (isNormalResource(r)) return r;
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

/** Whether normalResource would give back the same fields in the same order. */
function isNormalResource(r: Resource): boolean {
  let next = 0;
  for (const key in r) {
    const v = r[key as keyof Resource];
    while (next < RESOURCE_FIELDS.length && RESOURCE_FIELDS[next] !== key) next++;
    if (next === RESOURCE_FIELDS.length || v === undefined || (Array.isArray(v) && v.length === 0)) return false;
    next++;
  }
  const entities = r.entities;
  return !entities || entities.every((e, i) => i === 0 || compareStrings(entities[i - 1], e) <= 0);
}

/** Flagged resources in the read API's order: by name, then resource ID (ties keep the document's order). */
function resourceOrder(resources: readonly Resource[]): Resource[] {
  const order = Array.from(resources.keys());
  order.sort(
    (a, b) =>
      compareStrings(resources[a].name, resources[b].name) || compareStrings(resources[a].resourceId, resources[b].resourceId) || a - b,
  );
  return order.map((i) => normalResource(resources[i]));
}

const historyOrder = (history: readonly Scan[]): Scan[] =>
  history
    .map((h, i) => ({ h, i }))
    .sort((a, b) => a.h.scannedOn - b.h.scannedOn || a.i - b.i)
    .map((x) => ({ scannedOn: x.h.scannedOn, status: x.h.status }));

/** Row IDs that keep the document's order where the read API orders by row ID. */
const ticketRowId = (testId: string, i: number) => `${testId}:ticket:${String(i).padStart(4, '0')}`;

function rowColumns(e: ProgramTest, w: WriteContext) {
  return {
    kind: e.kind ?? 'automated',
    name: e.name,
    result: e.result ?? 'passing',
    integration_failing: e.integrationFailing ?? false,
    checks: JSON.stringify(e.checks ?? []),
    ...nullableColumns(e, NULLABLE),
    added_on: e.addedOn ?? w.now,
    modified_on: e.modifiedOn ?? null,
  };
}

/** What a new test takes for the fields its entry leaves out. */
const defaults = (ctx: NormalizeContext): Partial<ProgramTest> => ({
  kind: 'automated',
  result: 'passing',
  integrationFailing: false,
  checks: [],
  applications: [],
  ...nullDefaults(NULLABLE),
  assignees: [],
  entities: [],
  controls: [],
  requirements: [],
  risks: [],
  tickets: [],
  resources: [],
  history: [],
  addedOn: ctx.now,
  modifiedOn: null,
});

export const testsKind: ProgramKind<ProgramTest, RecordedKindEvents> = {
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
        const entry: ProgramTest = {
          key,
          name: t.name,
          kind: t.kind as ProgramTest['kind'],
          result: t.result as ProgramTest['result'],
          integrationFailing: Boolean(t.integration_failing),
          checks: sorted(JSON.parse(String(t.checks)) as string[]),
          applications: sorted((appsOf.get(t.id) ?? []).flatMap((a) => appName.get(a.application_id) ?? [])),
          assignees: assigneesOfLinks(people.get(t.id) ?? [], person),
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
    // Flagged resources held packed (src/domain/program/packed-lists.ts) are put in order when
    // first read: a plan writes none, so a created test's are never unpacked (issue 36, goal (d)).
    const packed = isPacked(entry, 'resources');
    const merged = mergeEntry(withoutPacked(entry), current, defaults(ctx), FIELDS);
    for (const f of ['checks', 'applications', 'entities', 'controls', 'requirements', 'risks'] as const) merged[f] = sorted(merged[f]);
    if (entry.assignees !== undefined) merged.assignees = entry.assignees.map(assigneeEntry);
    if (!packed && entry.resources !== undefined) merged.resources = resourceOrder(entry.resources);
    if (entry.history !== undefined) merged.history = historyOrder(entry.history);
    const out = reorder(merged);
    if (packed) lazyField(out, 'resources', () => resourceOrder(entry.resources ?? []));
    return out;
  },
  stampChange: (normalized, given, ctx) => {
    const out = { ...normalized };
    if (given.modifiedOn === undefined) out.modifiedOn = ctx.now;
    return reorder(out);
  },

  check(entry, pointer, issues) {
    repeatedAssignees(entry.assignees, pointer, issues);
    repeatedTickets(entry.tickets, pointer, issues);
    // a pointer made only for a list that can repeat: a plan of 864,209 resources otherwise made
    // that many strings for nothing (issue 36, goal (d))
    entry.resources?.forEach((r, i) => {
      if ((r.assignees?.length ?? 0) > 1) repeated(r.assignees, `${pointer}/resources/${i}/assignees`, 'lists this person twice', issues);
    });
  },

  references(entry, pointer) {
    const { refs, many, links } = referenceList(pointer);
    links(entry);
    entry.resources?.forEach((r, i) => {
      if (r.assignees?.length) many('person', r.assignees, `resources/${i}/assignees`);
      if (r.entities?.length) many('entity', r.entities, `resources/${i}/entities`);
    });
    return refs;
  },

  write: (w, changes) =>
    writeRowsAndLinks(w, changes, {
      table: 'tests',
      columns: rowColumns,
      rowFields: ROW_FIELDS,
      subject: 'test',
      links: ['assignees', 'entities', 'tickets', 'risks', 'requirements', 'controls'],
      mappings: 'test',
      ticketRowId,
      children: writeTestChildren,
      dependents: [
        ['evidence_tests', 'test_id'],
        ['test_applications', 'test_id'],
        ['test_history', 'test_id'],
      ],
      childrenOfDeleted: (w, ids) => deleteResources(w, ids),
    }),

  events: (w, changes) =>
    shapedUpdateEvents(w, 'test', changes, async (c, lookups) => [
      testShape(c.id, c.before!, w, lookups),
      testShape(c.id, c.after!, w, lookups),
    ]),
};

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
    ...((e.checks ?? []).length > 0 ? { checks: e.checks } : {}),
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
