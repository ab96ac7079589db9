// Third-party findings in a program document (issue 25; the entry is ./program-schema.ts). A
// finding's key is its public ID, `<source>%23<finding key>`, in every organization: findings the
// demo, the API or an import made export under the ID GET shows, and an apply matches them by it.
// The stored row's ID (never shown) is derived from the organization and the key.
//
// Writes go through plain statements on the findings and their children, so the triggers of
// migrations 0008 and 0012 keep the counters and the list columns (assignees, custom values,
// resource count) right whatever changes.
//
// Events are those of the API's create and update: `vulnerability.created` with the finding as
// GET shows it, `vulnerability.updated` with the fields of GET (every expansion: affected
// resources of every status, tickets, risks) that changed.
import { changedList, group } from '../kinds/list-changes.ts';
import type { IssueSink, NormalizeContext, ProgramKind, RecordChange, WriteContext } from '../kinds/kind.ts';
import type { RecordedKindEvents } from '../events/kind-events.ts';
import { createdStamps, mergeEntry, sorted, stampModified } from '../kinds/normalize.ts';
import { derivedRecordId } from '../kinds/keys.ts';
import { ProgramVulnerability, type ProgramAffectedResource, FINDING_ENTRY_KEY } from './program-schema.ts';
import { deleteWhereIn, insertRows, selectAll, selectColumns } from '../../storage/db/repositories/program/program-writes.ts';
import { peopleBySubject, risksBySubject, ticketsBySubject } from '../../storage/db/repositories/program/program-links.ts';
import { writeRowsAndLinks } from '../kinds/row-writer.ts';
import type { NameLookups } from '../../storage/db/repositories/program/program-names.ts';
import { listCustomFieldDefinitions, type CustomFieldDefinition } from '../../storage/db/repositories/vulnerabilities/vulnerabilities.ts';
import type { Row } from '../../storage/db/bulk-insert.ts';
import { assigneesOf, compareStrings, personStampOf, risksOf } from '../artifacts/program-shapes.ts';
import { changedFields } from '../events/changes.ts';
import type { NewEvent } from '../events/record.ts';
import {
  entryFields,
  assigneeEntry,
  assigneesOfLinks,
  fieldOrder,
  nullable,
  nullableColumns,
  nullDefaults,
  num,
  stampColumns,
  stampsOfRow,
} from '../kinds/entry-values.ts';
import { referenceList, repeated, repeatedAssignees, repeatedTickets } from '../kinds/entry-checks.ts';
import { setPresent } from '../set-present.ts';
import { publicVulnerabilityId, type Severity, type VulnerabilitySource, type VulnerabilityStatus } from './shape.ts';
import type { VulnerabilityDetail } from './schema.ts';

type Resource = ProgramAffectedResource;

/** The entry's fields, in the schema's order. */
const FIELDS = entryFields<ProgramVulnerability>(ProgramVulnerability);

const ROW_FIELDS = FIELDS.filter((f) => !['assignees', 'customFields', 'affectedResources', 'tickets', 'risks'].includes(f));

const reorder = fieldOrder<ProgramVulnerability>(FIELDS);

/** The fields that hold null when the finding has no value (their columns are named after them). */
const NULLABLE = [
  'fixAvailable',
  'description',
  'remediation',
  'stepsToReproduce',
  'lastScannedOn',
  'cvssScore',
  'sla',
  'reportLink',
] as const satisfies readonly (keyof ProgramVulnerability)[];

/** The source and finding key a finding's key names. */
export function partsOf(key: string): { source: string; findingKey: string } {
  const match = FINDING_ENTRY_KEY.exec(key);
  if (!match) throw new Error(`not a finding key: ${key}`);
  return { source: match[1], findingKey: match[2] };
}

/** The columns a finding's entry is made of (not the list page's JSON nor an import's bookkeeping). */
const FINDING_COLUMNS = [
  'id',
  'source',
  'finding_key',
  'title',
  'status',
  'severity',
  'cve_id',
  'fix_available',
  'description',
  'remediation',
  'steps_to_reproduce',
  'first_seen',
  'last_scanned_on',
  'cvss_score',
  'sla',
  'report_link',
  'added_by',
  'added_on',
  'last_modified_by',
  'modified_on',
] as const;

const resourceRowId = (findingId: string, i: number) => `${findingId}:resource:${String(i).padStart(4, '0')}`;
const ticketRowId = (findingId: string, i: number) => `${findingId}:ticket:${String(i).padStart(4, '0')}`;

function normalResource(r: Resource, firstSeen: number | undefined): Resource {
  const out: Resource = { name: r.name, type: r.type };
  if (r.tags && r.tags.length > 0) out.tags = r.tags;
  const seen = r.firstSeen ?? firstSeen;
  if (seen !== undefined) out.firstSeen = seen;
  out.status = r.status ?? 'open';
  return out;
}

/** Affected resources in the read API's order: by name (ties keep the document's order). */
const resourceOrder = (resources: readonly Resource[], firstSeen: number | undefined): Resource[] =>
  resources
    .map((r, i) => ({ r, i }))
    .sort((a, b) => compareStrings(a.r.name, b.r.name) || a.i - b.i)
    .map((x) => normalResource(x.r, firstSeen));

function rowColumns(e: ProgramVulnerability, w: WriteContext) {
  return {
    title: e.title,
    status: e.status ?? 'open',
    severity: e.severity,
    cve_id: e.cveId ?? '',
    first_seen: e.firstSeen ?? w.now,
    ...nullableColumns(e, NULLABLE),
    ...stampColumns(e, w),
  };
}

/** What a new finding takes for the fields its entry leaves out. */
const defaults = (ctx: NormalizeContext): Partial<ProgramVulnerability> => ({
  status: 'open',
  cveId: '',
  firstSeen: ctx.now,
  ...nullDefaults(NULLABLE),
  assignees: [],
  customFields: [],
  affectedResources: [],
  tickets: [],
  risks: [],
  lastModifiedBy: null,
  ...createdStamps(ctx),
});

export const vulnerabilitiesKind: ProgramKind<ProgramVulnerability, RecordedKindEvents> = {
  name: 'vulnerabilities',
  record: 'vulnerability',
  resources: ['vulnerability'],
  dataKinds: ['vulnerabilities'],
  schema: ProgramVulnerability,
  deriveId: (organizationId, key) => derivedRecordId(organizationId, 'vulnerability', key),
  // A finding's key names its source and key: the public ID follows from it (no state kept between runs).
  publicId: (_id, key) => {
    const { source, findingKey } = partsOf(key);
    return publicVulnerabilityId(source, findingKey);
  },

  async read({ q, organizationId: org, keys }) {
    const [findings, resources, values, people, tickets, risks] = await Promise.all([
      selectColumns(q, 'vulnerabilities', org, FINDING_COLUMNS),
      selectAll(q, 'vulnerability_resources', org, ['vulnerability_id', 'name', 'id']),
      selectAll(q, 'custom_field_values', org),
      peopleBySubject(q, org, 'vulnerability'),
      ticketsBySubject(q, org, 'vulnerability'),
      risksBySubject(q, org, 'vulnerability'),
    ]);
    const resourcesOf = group(resources, (r) => r.vulnerability_id);
    const valuesOf = group(values, (v) => v.subject_id);
    const person = (id: string) => keys.keyOf('person', id);
    return findings
      .map((f) => {
        const key = publicVulnerabilityId(f.source, f.finding_key);
        const firstSeen = Number(f.first_seen);
        const entry: ProgramVulnerability = {
          key,
          title: f.title,
          status: f.status as VulnerabilityStatus,
          severity: f.severity as Severity,
          cveId: f.cve_id ?? '',
          firstSeen,
          assignees: assigneesOfLinks(people.get(f.id) ?? [], person),
          customFields: (valuesOf.get(f.id) ?? [])
            .map((v) => ({ field: keys.keyOf('customField', v.custom_field_id), value: v.value }))
            .sort((a, b) => compareStrings(a.field, b.field)),
          affectedResources: (resourcesOf.get(f.id) ?? []).map((r) => {
            const resource: Resource = { name: r.name, type: r.type };
            const tags = JSON.parse(r.tags) as string[];
            if (tags.length > 0) resource.tags = tags;
            resource.firstSeen = Number(r.first_seen);
            resource.status = r.status as VulnerabilityStatus;
            return resource;
          }),
          tickets: (tickets.get(f.id) ?? []).map((t) => ({ id: t.ticketId, source: t.source, url: t.url })),
          risks: sorted((risks.get(f.id) ?? []).map((id) => keys.keyOf('risk', id))),
          ...stampsOfRow(f, person),
        };
        nullable(entry, 'fixAvailable', f.fix_available as ProgramVulnerability['fixAvailable']);
        nullable(entry, 'description', f.description);
        nullable(entry, 'remediation', f.remediation);
        nullable(entry, 'stepsToReproduce', f.steps_to_reproduce);
        nullable(entry, 'lastScannedOn', num(f.last_scanned_on));
        nullable(entry, 'cvssScore', num(f.cvss_score));
        nullable(entry, 'sla', num(f.sla));
        nullable(entry, 'reportLink', f.report_link === '' ? null : f.report_link);
        return { id: f.id, entry: reorder(entry) };
      })
      .sort((a, b) => compareStrings(a.entry.key, b.entry.key));
  },

  normalize(entry, current, ctx) {
    const merged = mergeEntry(entry, current, defaults(ctx), FIELDS);
    merged.risks = sorted(merged.risks);
    if (entry.customFields !== undefined)
      merged.customFields = entry.customFields
        .map((v) => ({ field: v.field, value: v.value }))
        .sort((a, b) => compareStrings(a.field, b.field));
    if (entry.assignees !== undefined) merged.assignees = entry.assignees.map(assigneeEntry);
    if (entry.affectedResources !== undefined) merged.affectedResources = resourceOrder(entry.affectedResources, merged.firstSeen);
    if (entry.tickets !== undefined) merged.tickets = entry.tickets.map((t) => ({ id: t.id, source: t.source, url: t.url }));
    return reorder(merged);
  },
  stampChange: (normalized, given, ctx) => reorder(stampModified(normalized, given, ctx)),

  check(entry, pointer, issues) {
    repeatedAssignees(entry.assignees, pointer, issues);
    repeated(
      entry.customFields?.map((v) => v.field),
      `${pointer}/customFields`,
      'gives this custom field twice',
      issues,
      '/field',
    );
    repeatedTickets(
      entry.tickets?.map((t) => ({ source: t.source, ticketId: t.id })),
      pointer,
      issues,
    );
    const { findingKey } = partsOf(entry.key);
    if (entry.cveId && findingKey.startsWith('CVE-') && entry.cveId !== findingKey)
      issues.push({ field: `${pointer}/cveId`, message: `must be the finding key ${findingKey} (or left out) when the key is a CVE ID` });
  },

  references(entry, pointer) {
    const { refs, one, many, assignees } = referenceList(pointer);
    assignees(entry.assignees);
    entry.customFields?.forEach((v, i) => {
      one('customField', v.field, `customFields/${i}/field`);
    });
    many('risk', entry.risks, 'risks');
    one('person', entry.addedBy, 'addedBy');
    one('person', entry.lastModifiedBy, 'lastModifiedBy');
    return refs;
  },

  checkWrites: checkValues,

  write: (w, changes) =>
    writeRowsAndLinks(w, changes, {
      table: 'vulnerabilities',
      columns: rowColumns,
      keyColumns: (key) => ({ source: partsOf(key).source, finding_key: partsOf(key).findingKey }),
      rowFields: ROW_FIELDS,
      subject: 'vulnerability',
      links: ['assignees', 'tickets', 'risks'],
      ticketRowId,
      ticket: (t: { id: string; source: string; url: string }) => ({ ticketId: t.id, source: t.source, url: t.url }),
      dependents: [
        ['custom_field_values', 'subject_id'],
        ['vulnerability_resources', 'vulnerability_id'],
      ],
      children: writeValuesAndResources,
    }),

  async events(w, changes) {
    const upserts = changes.filter((c) => c.action !== 'delete');
    if (upserts.length === 0) return { events: [] };
    const [lookups, definitions] = await Promise.all([w.names(), listCustomFieldDefinitions(w.trx, w.organizationId, 'vulnerability')]);
    const events: NewEvent[] = [];
    for (const c of upserts) {
      const { findingKey, source } = partsOf(c.key);
      const publicId = publicVulnerabilityId(source, findingKey);
      if (c.action === 'create') {
        events.push({
          type: 'vulnerability.created',
          resourceId: publicId,
          occurredAt: w.now,
          data: { vulnerability: findingShape(c.key, c.after!, w, lookups, definitions, false) },
        });
        continue;
      }
      const fieldChanges = changedFields(
        findingShape(c.key, c.before!, w, lookups, definitions, true),
        findingShape(c.key, c.after!, w, lookups, definitions, true),
      );
      if (Object.keys(fieldChanges).length > 0)
        events.push({ type: 'vulnerability.updated', resourceId: publicId, occurredAt: w.now, data: { changes: fieldChanges } });
    }
    return { events };
  },
};

/**
 * A dropdown's value must be one of its options (as PATCH checks); a finding's fields must be of
 * findings. Checked against the definitions the apply has written (the document can define them).
 */
async function checkValues(w: WriteContext, changes: readonly RecordChange<ProgramVulnerability>[], issues: IssueSink): Promise<void> {
  const valuesChanged = changes.filter((c) => c.action !== 'delete' && changedList(c, 'customFields'));
  if (valuesChanged.length === 0) return;
  const definitions = new Map((await listCustomFieldDefinitions(w.trx, w.organizationId, 'vulnerability')).map((d) => [d.id, d]));
  for (const c of valuesChanged) {
    const index = c.index;
    const at = index === undefined ? `/vulnerabilities (${c.key})` : `/vulnerabilities/${index}`;
    (c.after!.customFields ?? []).forEach((v, j) => {
      const definition = definitions.get(w.keys.idOf('customField', v.field));
      if (!definition) issues.add(`${at}/customFields/${j}/field`, `"${v.field}" is not a custom field of findings`);
      else if (definition.fieldType === 'dropdown' && !definition.options.includes(v.value))
        issues.add(`${at}/customFields/${j}/value`, `must be one of the field's options: ${definition.options.join(', ')}`);
    });
  }
}

/**
 * The finding as GET /v1/vulnerabilities/{id} shows it (what create answers), and with
 * `expanded` every expansion too (affected resources of every status, tickets, risks): the data
 * of `vulnerability.created` and the fields `vulnerability.updated` names.
 */
export function findingShape(
  key: string,
  e: ProgramVulnerability,
  w: WriteContext,
  lookups: NameLookups,
  definitions: readonly CustomFieldDefinition[],
  expanded: boolean,
): VulnerabilityDetail {
  const { source, findingKey } = partsOf(key);
  const idOf = (record: string, k: string) => w.keys.idOf(record, k);
  const personId = (k: string | null | undefined) => (k == null ? null : idOf('person', k));
  const assignees = e.assignees ?? [];
  const values = new Map((e.customFields ?? []).map((v) => [idOf('customField', v.field), v.value]));
  const detail: VulnerabilityDetail = {
    vulnerabilityId: publicVulnerabilityId(source, findingKey),
    title: e.title,
    status: (e.status ?? 'open') as VulnerabilityStatus,
    severity: e.severity as Severity,
    source: source as VulnerabilitySource,
    assignees: assigneesOf(
      lookups,
      assignees.map((a) => idOf('person', a.person)),
      (i) => assignees[i].isPrimary ?? false,
    ),
    cveId: e.cveId ?? '',
    customFields: definitions.map((d) => ({
      customFieldId: d.id,
      title: d.title,
      fieldType: d.fieldType,
      options: d.options,
      fieldValue: values.get(d.id) ?? '',
    })),
    firstSeen: e.firstSeen ?? w.now,
    addedOn: e.addedOn ?? w.now,
    modifiedOn: e.modifiedOn ?? null,
  };
  setPresent(detail, 'description', e.description);
  setPresent(detail, 'lastScannedOn', e.lastScannedOn);
  setPresent(detail, 'cvssScore', e.cvssScore);
  setPresent(detail, 'sla', e.sla);
  setPresent(detail, 'reportLink', e.reportLink);
  setPresent(detail, 'remediation', e.remediation);
  setPresent(detail, 'stepsToReproduce', e.stepsToReproduce);
  setPresent(detail, 'addedBy', personStampOf(lookups, personId(e.addedBy)));
  setPresent(detail, 'lastModifiedBy', personStampOf(lookups, personId(e.lastModifiedBy)));
  if (expanded) {
    detail.affectedResources = (e.affectedResources ?? []).map((r) => ({
      name: r.name,
      type: r.type,
      tags: r.tags ?? [],
      firstSeen: r.firstSeen ?? detail.firstSeen,
      status: (r.status ?? 'open') as VulnerabilityStatus,
    }));
    detail.tickets = (e.tickets ?? []).map((t) => ({ id: t.id, url: t.url, source: t.source }));
    detail.mappedRisks = risksOf(
      lookups,
      (e.risks ?? []).map((k) => idOf('risk', k)),
    );
  }
  return detail;
}

/** A finding's custom field values and affected resources, each list rewritten whole when it changed. */
async function writeValuesAndResources(w: WriteContext, upserts: readonly RecordChange<ProgramVulnerability>[]): Promise<void> {
  const { db, trx, organizationId: org, keys } = w;
  const valuesChanged = upserts.filter((c) => changedList(c, 'customFields'));
  await deleteWhereIn(
    trx,
    'custom_field_values',
    org,
    'subject_id',
    valuesChanged.filter((c) => c.action === 'update').map((c) => c.id),
  );
  await insertRows(
    db,
    trx,
    'custom_field_values',
    valuesChanged.flatMap((c) =>
      (c.after!.customFields ?? []).map((v) => ({
        organization_id: org,
        custom_field_id: keys.idOf('customField', v.field),
        subject_id: c.id,
        value: v.value,
      })),
    ),
  );

  const resourcesChanged = upserts.filter((c) => changedList(c, 'affectedResources'));
  await deleteWhereIn(
    trx,
    'vulnerability_resources',
    org,
    'vulnerability_id',
    resourcesChanged.filter((c) => c.action === 'update').map((c) => c.id),
  );
  const rows: Row<'vulnerability_resources'>[] = [];
  for (const c of resourcesChanged)
    (c.after!.affectedResources ?? []).forEach((r, i) => {
      rows.push({
        id: resourceRowId(c.id, i),
        organization_id: org,
        vulnerability_id: c.id,
        name: r.name,
        type: r.type,
        tags: JSON.stringify(r.tags ?? []),
        first_seen: r.firstSeen ?? c.after!.firstSeen ?? w.now,
        status: r.status ?? 'open',
      });
    });
  await insertRows(db, trx, 'vulnerability_resources', rows);
}
