// Vulnerability findings: keyset pages of the list, the count of matching findings, one finding by
// its public ID, affected resources and custom fields.
//
// Page order: first_seen descending, then the public ID (source, finding_key) ascending. A page
// starts strictly after the position of the previous page's last finding and is served by the
// indexes of migration 0002 (see there): without a status/severity filter one range of
// vulnerabilities_page_idx; with one, one range of vulnerabilities_triage_idx per
// (status, severity) pair, each cut at `limit`, merged. So a page reads O(limit × pairs) index
// entries wherever it lies in the list; no OFFSET anywhere.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../schema.ts';

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

const LIST_COLUMNS = [
  'v.id',
  'v.source',
  'v.finding_key',
  'v.title',
  'v.status',
  'v.severity',
  'v.cve_id',
  'v.cvss_score',
  'v.first_seen',
] as const;

const toVulnerability = (r: Database['vulnerabilities']): VulnerabilityRow => ({
  id: r.id,
  source: r.source,
  findingKey: r.finding_key,
  title: r.title,
  status: r.status,
  severity: r.severity,
  cveId: r.cve_id ?? '',
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

const present = (values: readonly string[] | undefined): values is readonly string[] => values !== undefined && values.length > 0;

type KeyQuery = SelectQueryBuilder<Database, 'vulnerabilities', { first_seen: number; source: string; finding_key: string }>;

/** The filters every branch of a page (and the count) shares, except status and severity. */
function commonFilters<QB extends SelectQueryBuilder<Database, 'vulnerabilities', any>>(
  query: QB,
  organizationId: string,
  filter: VulnerabilityFilter,
): QB {
  let q = query.where('organization_id', '=', organizationId) as QB;
  if (present(filter.sources)) q = q.where('source', 'in', [...filter.sources]) as QB;
  if (present(filter.fixAvailable)) q = q.where('fix_available', 'in', [...filter.fixAvailable]) as QB;
  return q;
}

/**
 * One page: the findings matching `filter` after `after` (or from the start), in list
 * order, at most `limit`. Ask for one more than the page size to learn whether a next page exists.
 */
export async function listVulnerabilityPage(
  db: Q,
  organizationId: string,
  filter: VulnerabilityFilter,
  after: PagePosition | undefined,
  limit: number,
  domains: { statuses: readonly string[]; severities: readonly string[] },
): Promise<VulnerabilityListRow[]> {
  const branch = (pair?: { status: string; severity: string }): KeyQuery => {
    let q = commonFilters(db.selectFrom('vulnerabilities').select(['first_seen', 'source', 'finding_key']), organizationId, filter);
    if (pair) q = q.where('status', '=', pair.status).where('severity', '=', pair.severity);
    if (after) {
      // `first_seen <= s` bounds the index range; the OR only drops the ties already served.
      q = q
        .where('first_seen', '<=', after.firstSeen)
        .where((eb) =>
          eb.or([
            eb('first_seen', '<', after.firstSeen),
            eb(eb.refTuple('source', 'finding_key'), '>', eb.tuple(after.source, after.findingKey)),
          ]),
        );
    }
    return q.orderBy('first_seen', 'desc').orderBy('source').orderBy('finding_key').limit(limit);
  };

  let branches: KeyQuery[];
  if (present(filter.statuses) || present(filter.severities)) {
    const statuses = present(filter.statuses) ? filter.statuses : domains.statuses;
    const severities = present(filter.severities) ? filter.severities : domains.severities;
    branches = statuses.flatMap((status) => severities.map((severity) => branch({ status, severity })));
  } else {
    branches = [branch()];
  }
  // SQLite refuses ORDER BY/LIMIT on a bare member of a compound select, so each branch is
  // wrapped in its own derived table.
  const wrapped = branches.map((b, i) => db.selectFrom(b.as(`b${i}`)).select(['first_seen', 'source', 'finding_key']));
  let keys = wrapped[0];
  for (const other of wrapped.slice(1)) keys = keys.unionAll(other);

  const rows = await db
    .selectFrom(keys.as('k'))
    .innerJoin('vulnerabilities as v', (join) =>
      join.on('v.organization_id', '=', organizationId).onRef('v.source', '=', 'k.source').onRef('v.finding_key', '=', 'k.finding_key'),
    )
    .select(LIST_COLUMNS)
    .orderBy('k.first_seen', 'desc')
    .orderBy('k.source')
    .orderBy('k.finding_key')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    source: r.source,
    findingKey: r.finding_key,
    title: r.title,
    status: r.status,
    severity: r.severity,
    cveId: r.cve_id ?? '',
    cvssScore: r.cvss_score === null ? null : Number(r.cvss_score),
    firstSeen: Number(r.first_seen),
  }));
}

/** How many findings match `filter` (all pages). */
export async function countVulnerabilities(db: Q, organizationId: string, filter: VulnerabilityFilter): Promise<number> {
  let query = commonFilters(
    db.selectFrom('vulnerabilities').select((eb) => eb.fn.countAll<number>().as('n')),
    organizationId,
    filter,
  );
  if (present(filter.statuses)) query = query.where('status', 'in', [...filter.statuses]);
  if (present(filter.severities)) query = query.where('severity', 'in', [...filter.severities]);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

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

/** How many affected resources each of the given findings has (any status); absent means 0. */
export async function countAffectedResources(db: Q, organizationId: string, vulnerabilityIds: string[]): Promise<Map<string, number>> {
  if (vulnerabilityIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('vulnerability_resources')
    .select((eb) => ['vulnerability_id', eb.fn.countAll<number>().as('n')])
    .where('organization_id', '=', organizationId)
    .where('vulnerability_id', 'in', vulnerabilityIds)
    .groupBy('vulnerability_id')
    .execute();
  return new Map(rows.map((r) => [r.vulnerability_id, Number(r.n)]));
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
