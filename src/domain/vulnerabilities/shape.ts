// The public shape of a vulnerability finding, shared by the list and get-one: the field sets and
// the merge of custom field definitions with the values stored on a finding; and the encoded
// public ID, which create and update use too.
import type { Assignee, MappedRisk, PersonStamp } from '../../storage/db/repositories/links.ts';
import type { CustomFieldDefinition, VulnerabilityListRow } from '../../storage/db/repositories/vulnerabilities.ts';
import { SEVERITIES, VULNERABILITY_SOURCES, VULNERABILITY_STATUSES } from '../vocabulary.ts';

export type VulnerabilityStatus = (typeof VULNERABILITY_STATUSES)[number];
export type Severity = (typeof SEVERITIES)[number];
export type VulnerabilitySource = (typeof VULNERABILITY_SOURCES)[number];

/** Optional fields of a list item. */
export const VULNERABILITY_LIST_FIELDS = ['cvssScore', 'resourcesCount', 'firstSeen'] as const;
export type VulnerabilityListField = (typeof VULNERABILITY_LIST_FIELDS)[number];
/** Expansions of the get-one shape. */
export const VULNERABILITY_EXPANSIONS = ['affectedResources', 'tickets', 'mappedRisks'] as const;
export type VulnerabilityExpansion = (typeof VULNERABILITY_EXPANSIONS)[number];
/** The `fixAvailable` filter (and create field) values. */
export const FIX_AVAILABLE = ['yes', 'no'] as const;
/** Page sizes of the list. */
export const PAGE_SIZES = [50, 100] as const;
export const DEFAULT_PAGE_SIZE = 50;
/** Affected-resource statuses shown by default on get-one. */
export const DEFAULT_RESOURCE_STATUSES = ['open', 'risk'] as const;

export interface CustomFieldEntry {
  customFieldId: string;
  title: string;
  fieldType: string;
  options: string[];
  /** the stored value; `""` when the finding has none */
  fieldValue: string;
}

export interface VulnerabilitySummary {
  vulnerabilityId: string;
  title: string;
  status: VulnerabilityStatus;
  severity: Severity;
  source: VulnerabilitySource;
  assignees: Assignee[];
  cveId: string;
  customFields: CustomFieldEntry[];
  cvssScore?: number;
  resourcesCount?: number;
  firstSeen?: number;
}

export interface AffectedResource {
  name: string;
  type: string;
  tags: string[];
  firstSeen: number;
  status: VulnerabilityStatus;
}

export interface VulnerabilityTicket {
  id: string;
  url: string;
  source: string;
}

export interface VulnerabilityDetail {
  vulnerabilityId: string;
  title: string;
  status: VulnerabilityStatus;
  severity: Severity;
  source: VulnerabilitySource;
  assignees: Assignee[];
  cveId: string;
  customFields: CustomFieldEntry[];
  description?: string;
  firstSeen: number;
  lastScannedOn?: number;
  cvssScore?: number;
  sla?: number;
  reportLink?: string;
  remediation?: string;
  stepsToReproduce?: string;
  addedBy?: PersonStamp;
  addedOn: number;
  lastModifiedBy?: PersonStamp;
  modifiedOn: number | null;
  affectedResources?: AffectedResource[];
  tickets?: VulnerabilityTicket[];
  mappedRisks?: MappedRisk[];
}

/**
 * The public ID, returned already URL-encoded: the source, the three characters `%23` (an encoded
 * `#`), then the finding key.
 */
export const publicVulnerabilityId = (source: string, findingKey: string) => `${source}%23${findingKey}`;

/**
 * The (source, finding key) a path parameter names. The router has already decoded the path once,
 * so the ID as returned (`api%23VUL-0001`) arrives as `api#VUL-0001`; an ID encoded again
 * (`api%2523VUL-0001`) arrives as `api%23VUL-0001`, has no `#`, and names nothing.
 */
export function parseVulnerabilityId(decoded: string): { source: string; findingKey: string } | undefined {
  const hash = decoded.indexOf('#');
  if (hash <= 0 || hash === decoded.length - 1) return undefined;
  const source = decoded.slice(0, hash);
  if (!(VULNERABILITY_SOURCES as readonly string[]).includes(source)) return undefined;
  return { source, findingKey: decoded.slice(hash + 1) };
}

/** Every custom field defined for findings, in order, with the finding's value or `""`. */
export function mergeCustomFields(definitions: CustomFieldDefinition[], values: Map<string, string> | undefined): CustomFieldEntry[] {
  return definitions.map((d) => ({
    customFieldId: d.id,
    title: d.title,
    fieldType: d.fieldType,
    options: d.options,
    fieldValue: values?.get(d.id) ?? '',
  }));
}

/** The default fields every shape starts from. */
export function baseFields(
  row: VulnerabilityListRow,
  assignees: Assignee[] | undefined,
  customFields: CustomFieldEntry[],
): Pick<VulnerabilitySummary, 'vulnerabilityId' | 'title' | 'status' | 'severity' | 'source' | 'assignees' | 'cveId' | 'customFields'> {
  return {
    vulnerabilityId: publicVulnerabilityId(row.source, row.findingKey),
    title: row.title,
    // stored values come from the same closed vocabularies
    status: row.status as VulnerabilityStatus,
    severity: row.severity as Severity,
    source: row.source as VulnerabilitySource,
    assignees: assignees ?? [],
    cveId: row.cveId,
    customFields,
  };
}
