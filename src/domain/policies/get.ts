// One policy, with its mappings and authorship, plus the expansions
// asked for (documents, version history, tickets).
import { cachedWithinPlan } from '../artifacts/plan-bounds.ts';
import { setPresent } from '../set-present.ts';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound } from '../../shared/errors.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { commonMappings, commonOptionalFields, fileEntry, loadLinksFrom, stamp, ticketsOf, type ArtifactLinks } from '../artifacts/read.ts';
import { policyListItem } from './list.ts';
import type { PolicyDetail, PolicyVersion } from './schema.ts';
import { policyStatusReason } from '../time/due.ts';
import { findPolicy, listPolicyDocuments, listPolicyVersions, type PolicyRow } from '../../storage/db/repositories/artifacts/policies.ts';

export const POLICY_EXPANSIONS = ['aiDetectedGaps', 'documents', 'versionHistory', 'tickets'] as const;
export type PolicyExpansion = (typeof POLICY_EXPANSIONS)[number];

/** Authorship fields of the get-one answer (publishedOn and modifiedOn are null when unset). */
const AUTHORSHIP = new Set(['addedBy', 'addedOn', 'lastModifiedBy', 'modifiedOn']);

export interface GetPolicyInput {
  policyId: string;
  fields?: PolicyExpansion[];
}

export async function getPolicy({ ctx, input }: { ctx: Context; input: GetPolicyInput }): Promise<PolicyDetail> {
  authorize(ctx.actor, 'policy', 'read');
  const policy = await cachedWithinPlan(ctx, 'policies.get', input, () => compute(ctx, input));
  // Decided per request: whether the review date has passed depends on the clock, not only on the data.
  const statusReason = policyStatusReason(policy, ctx.now());
  return statusReason === undefined ? policy : { ...policy, statusReason };
}

async function compute(ctx: Context, input: GetPolicyInput): Promise<PolicyDetail> {
  const db = ctx.db.kysely;
  const org = ctx.actor.organizationId;
  const row = await findPolicy(db, org, input.policyId);
  if (!row) throw notFound('Policy');
  return buildPolicyDetail(db, org, row, input.fields ?? []);
}

/** The policy as GET /v1/policies/{policyId} answers it, read through `db` (a write's transaction). */
export async function buildPolicyDetail(
  db: Kysely<Database>,
  org: string,
  row: PolicyRow,
  expansions: readonly PolicyExpansion[],
  /** links already loaded for many policies at once (mappings and people; used when tickets are not asked for) */
  preloaded?: ArtifactLinks,
): Promise<PolicyDetail> {
  const fields = new Set(expansions);
  const [links, documents, versions] = await Promise.all([
    preloaded && !fields.has('tickets')
      ? preloaded
      : loadLinksFrom(db, org, 'policy', [row.id], { mappings: true, people: true, tickets: fields.has('tickets') }),
    fields.has('documents') ? listPolicyDocuments(db, org, row.id) : undefined,
    fields.has('versionHistory') ? listPolicyVersions(db, org, row.id) : undefined,
  ]);
  // aiDetectedGaps is a default list field, so it is always present; asking for it changes nothing.
  const policy: PolicyDetail = {
    ...policyListItem(row, links),
    ...commonMappings(row, links),
    ...commonOptionalFields(row, links, AUTHORSHIP),
    publishedOn: row.publishedOn,
  };
  setPresent(policy, 'policyRequirementText', row.requirementText);
  setPresent(policy, 'publishedBy', stamp(links, row.publishedBy));
  if (documents) policy.documents = documents.map((d) => fileEntry(d, links));
  if (versions) {
    policy.versionHistory = versions.map((v) => {
      const version: PolicyVersion = { versionName: v.versionName, publishedOn: v.publishedOn };
      setPresent(version, 'publishedBy', stamp(links, v.publishedBy));
      return version;
    });
  }
  if (fields.has('tickets')) policy.tickets = ticketsOf(links, row.id);
  return policy;
}
