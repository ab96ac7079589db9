// Vulnerability findings: one finding by its public ID, affected resources and custom fields, and
// the types the list shares with ./vulnerability-pages.ts (pages and totalCount).
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../schema.ts';

type Q = Kysely<Database>;

export interface VulnerabilityFilter {
  statuses?: readonly string[];
  severities?: readonly string[];
  sources?: readonly string[];
  /** `yes` / `no`; findings with no recorded value match neither */
  fixAvailable?: readonly string[];
}

/** Where a page ends: the last finding's first_seen and public ID. */
export interface PagePosition {
  firstSeen: number;
  source: string;
  findingKey: string;
}

export interface VulnerabilityRow {
  id: string;
  source: string;
  findingKey: string;
  title: string;
  status: string;
  severity: string;
  cveId: string;
  fixAvailable: string | null;
  description: string | null;
  remediation: string | null;
  stepsToReproduce: string | null;
  firstSeen: number;
  lastScannedOn: number | null;
  cvssScore: number | null;
  sla: number | null;
  reportLink: string | null;
  addedBy: string | null;
  addedOn: number;
  lastModifiedBy: string | null;
  modifiedOn: number | null;
}

/** The columns a list item needs (the list never reads descriptions and other long texts). */
export type VulnerabilityListRow = Pick<
  VulnerabilityRow,
  'id' | 'source' | 'findingKey' | 'title' | 'status' | 'severity' | 'cveId' | 'cvssScore' | 'firstSeen'
>;

/** The columns that name a finding and say what it is, as every read of findings gives them first. */
export const findingHead = (
  r: Pick<Database['vulnerabilities'], 'id' | 'source' | 'finding_key' | 'title' | 'status' | 'severity'> & { cve_id: string | null },
): Pick<VulnerabilityRow, 'id' | 'source' | 'findingKey' | 'title' | 'status' | 'severity' | 'cveId'> => ({
  id: r.id,
  source: r.source,
  findingKey: r.finding_key,
  title: r.title,
  status: r.status,
  severity: r.severity,
  cveId: r.cve_id ?? '',
});

export const toVulnerability = (r: Selectable<Database['vulnerabilities']>): VulnerabilityRow => ({
  ...findingHead(r),
  fixAvailable: r.fix_available,
  description: r.description,
  remediation: r.remediation,
  stepsToReproduce: r.steps_to_reproduce,
  firstSeen: Number(r.first_seen),
  lastScannedOn: r.last_scanned_on === null ? null : Number(r.last_scanned_on),
  cvssScore: r.cvss_score === null ? null : Number(r.cvss_score),
  sla: r.sla === null ? null : Number(r.sla),
  reportLink: r.report_link,
  addedBy: r.added_by,
  addedOn: Number(r.added_on),
  lastModifiedBy: r.last_modified_by,
  modifiedOn: r.modified_on === null ? null : Number(r.modified_on),
});

/** One finding by its public ID parts. */
export async function findVulnerability(
  db: Q,
  organizationId: string,
  source: string,
  findingKey: string,
): Promise<VulnerabilityRow | undefined> {
  const row = await db
    .selectFrom('vulnerabilities')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('source', '=', source)
    .where('finding_key', '=', findingKey)
    .executeTakeFirst();
  return row && toVulnerability(row);
}

export interface AffectedResourceRow {
  name: string;
  type: string;
  tags: string[];
  firstSeen: number;
  status: string;
}

/** A finding's affected resources whose status is one of `statuses`, ordered by name, then ID. */
export async function listAffectedResources(
  db: Q,
  organizationId: string,
  vulnerabilityId: string,
  statuses: readonly string[],
): Promise<AffectedResourceRow[]> {
  if (statuses.length === 0) return [];
  const rows = await db
    .selectFrom('vulnerability_resources')
    .select(['name', 'type', 'tags', 'first_seen', 'status'])
    .where('organization_id', '=', organizationId)
    .where('vulnerability_id', '=', vulnerabilityId)
    .where('status', 'in', [...statuses])
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    name: r.name,
    type: r.type,
    tags: JSON.parse(r.tags) as string[],
    firstSeen: Number(r.first_seen),
    status: r.status,
  }));
}

export interface CustomFieldDefinition {
  id: string;
  title: string;
  fieldType: string;
  options: string[];
}

/** The organization's custom fields for one resource type, in their configured order. */
export async function listCustomFieldDefinitions(db: Q, organizationId: string, resourceType: string): Promise<CustomFieldDefinition[]> {
  const rows = await db
    .selectFrom('custom_fields')
    .select(['id', 'title', 'field_type', 'options'])
    .where('organization_id', '=', organizationId)
    .where('resource_type', '=', resourceType)
    .orderBy('position')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, title: r.title, fieldType: r.field_type, options: JSON.parse(r.options) as string[] }));
}

/** The stored custom field values of the given subjects: subject ID → (custom field ID → value). */
export async function loadCustomFieldValues(
  db: Q,
  organizationId: string,
  subjectIds: string[],
): Promise<Map<string, Map<string, string>>> {
  const map = new Map<string, Map<string, string>>();
  if (subjectIds.length === 0) return map;
  const rows = await db
    .selectFrom('custom_field_values')
    .select(['subject_id', 'custom_field_id', 'value'])
    .where('organization_id', '=', organizationId)
    .where('subject_id', 'in', subjectIds)
    .execute();
  for (const r of rows) {
    let values = map.get(r.subject_id);
    if (!values) map.set(r.subject_id, (values = new Map()));
    values.set(r.custom_field_id, r.value);
  }
  return map;
}
