// One vulnerability: one finding in the get shape. `buildVulnerabilityDetail` is the one builder
// of that shape, so create and update can answer with exactly what reading one returns.
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound } from '../../shared/errors.ts';
import { cachedResult } from '../result-cache.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { loadPeople, loadRisks, loadSubjectPeople, loadTickets } from '../../storage/db/repositories/links.ts';
import {
  findVulnerability,
  listAffectedResources,
  listCustomFieldDefinitions,
  loadCustomFieldValues,
  type VulnerabilityRow,
} from '../../storage/db/repositories/vulnerabilities/vulnerabilities.ts';
import {
  baseFields,
  DEFAULT_RESOURCE_STATUSES,
  mergeCustomFields,
  parseVulnerabilityId,
  vulnerabilityNotFound,
  type VulnerabilityExpansion,
  type VulnerabilityStatus,
} from './shape.ts';
import type { CustomField, VulnerabilityDetail } from './schema.ts';
import type { Assignee } from '../../shared/sub-objects.ts';

export interface GetVulnerabilityInput {
  /** the path parameter as the router decoded it once (see parseVulnerabilityId) */
  vulnerabilityId: string;
  /** affected-resource statuses to show (union); default open and risk */
  resourceStatus?: string[];
  fields?: VulnerabilityExpansion[];
}

export interface DetailOptions {
  resourceStatus?: readonly string[];
  fields?: readonly VulnerabilityExpansion[];
}

/** The get shape of a stored finding; a fixed number of queries whatever the finding holds. */
export async function buildVulnerabilityDetail(
  k: Kysely<Database>,
  organizationId: string,
  row: VulnerabilityRow,
  options: DetailOptions = {},
): Promise<VulnerabilityDetail> {
  const org = organizationId;
  const fields = new Set(options.fields ?? []);
  const statuses = options.resourceStatus && options.resourceStatus.length > 0 ? options.resourceStatus : DEFAULT_RESOURCE_STATUSES;
  const needsPeople = row.addedBy !== null || row.lastModifiedBy !== null;
  const [assignees, definitions, values, people, resources, tickets, risks] = await Promise.all([
    loadSubjectPeople(k, org, 'vulnerability', 'assignee', [row.id]),
    listCustomFieldDefinitions(k, org, 'vulnerability'),
    loadCustomFieldValues(k, org, [row.id]),
    needsPeople ? loadPeople(k, org) : Promise.resolve(undefined),
    fields.has('affectedResources') ? listAffectedResources(k, org, row.id, statuses) : Promise.resolve(undefined),
    fields.has('tickets') ? loadTickets(k, org, 'vulnerability', [row.id]) : Promise.resolve(undefined),
    fields.has('mappedRisks') ? loadRisks(k, org, 'vulnerability', [row.id]) : Promise.resolve(undefined),
  ]);

  const detail = detailOfRow(row, assignees.get(row.id), mergeCustomFields(definitions, values.get(row.id)));
  const addedBy = row.addedBy ? people?.get(row.addedBy) : undefined;
  if (addedBy) detail.addedBy = addedBy;
  const lastModifiedBy = row.lastModifiedBy ? people?.get(row.lastModifiedBy) : undefined;
  if (lastModifiedBy) detail.lastModifiedBy = lastModifiedBy;
  if (resources) detail.affectedResources = resources.map((r) => ({ ...r, status: r.status as VulnerabilityStatus }));
  if (tickets) detail.tickets = (tickets.get(row.id) ?? []).map((t) => ({ id: t.ticketKey, url: t.url, source: t.source }));
  if (risks) detail.mappedRisks = risks.get(row.id) ?? [];
  return detail;
}

/**
 * The get shape of a row without its people stamps and expansions: the part that needs no query
 * beyond the finding's assignees and custom fields (a bulk write builds its events from it).
 */
export function detailOfRow(row: VulnerabilityRow, assignees: Assignee[] | undefined, customFields: CustomField[]): VulnerabilityDetail {
  const detail: VulnerabilityDetail = {
    ...baseFields(row, assignees, customFields),
    firstSeen: row.firstSeen,
    addedOn: row.addedOn,
    modifiedOn: row.modifiedOn,
  };
  // Fields without a value are left out (modifiedOn is the one nullable field here).
  if (row.description !== null) detail.description = row.description;
  if (row.lastScannedOn !== null) detail.lastScannedOn = row.lastScannedOn;
  if (row.cvssScore !== null) detail.cvssScore = row.cvssScore;
  if (row.sla !== null) detail.sla = row.sla;
  if (row.reportLink !== null && row.reportLink !== '') detail.reportLink = row.reportLink;
  if (row.remediation !== null) detail.remediation = row.remediation;
  if (row.stepsToReproduce !== null) detail.stepsToReproduce = row.stepsToReproduce;
  return detail;
}

export async function getVulnerability({ ctx, input }: { ctx: Context; input: GetVulnerabilityInput }): Promise<VulnerabilityDetail> {
  authorize(ctx.actor, 'vulnerability', 'read');
  const org = ctx.actor.organizationId;
  const id = parseVulnerabilityId(input.vulnerabilityId);
  if (!id) throw vulnerabilityNotFound(input.vulnerabilityId);
  // keyed by the parsed ID, so every spelling of one finding's ID shares an entry
  return cachedResult(ctx, 'vulnerabilities.get', { ...id, resourceStatus: input.resourceStatus, fields: input.fields }, async () => {
    const row = await findVulnerability(ctx.db.kysely, org, id.source, id.findingKey);
    if (!row) throw notFound('Vulnerability');
    return buildVulnerabilityDetail(ctx.db.kysely, org, row, { resourceStatus: input.resourceStatus, fields: input.fields });
  });
}
