// What the finding list, get-one, create and update share besides their schemas (./schema.ts): the
// field sets, the encoded public ID and the merge of custom field definitions with the values
// stored on a finding.
import type { Assignee } from '../../shared/sub-objects.ts';
import type { CustomFieldDefinition, VulnerabilityListRow } from '../../storage/db/repositories/vulnerabilities/vulnerabilities.ts';
import { type SEVERITIES, VULNERABILITY_SOURCES, type VULNERABILITY_STATUSES } from '../../shared/vocabulary.ts';
import type { CustomField, VulnerabilitySummary } from './schema.ts';
import { ServiceError } from '../../shared/errors.ts';

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

/**
 * The 404 for a path parameter that names no finding. An ID encoded once more than returned
 * (`api%2523VUL-0001`) is the usual mistake of a client that encodes every path segment, so its
 * message says what to send instead. The spec keeps a 404's `details` empty, so the advice is in
 * the message.
 */
export function vulnerabilityNotFound(decoded: string): ServiceError {
  if (/%(?:25)*23/i.test(decoded))
    return new ServiceError(
      'not_found',
      'Vulnerability was not found: the ID looks encoded twice. Send the vulnerabilityId exactly as returned ' +
        '(for example api%23VUL-0001, with %23 as is); do not encode it again.',
    );
  return new ServiceError('not_found', 'Vulnerability was not found.');
}

/** Every custom field defined for findings, in order, with the finding's value or `""`. */
export function mergeCustomFields(definitions: CustomFieldDefinition[], values: Map<string, string> | undefined): CustomField[] {
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
  customFields: CustomField[],
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
