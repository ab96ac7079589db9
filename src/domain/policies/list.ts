// The policy list: the caller's policies matching the filters, with the fields asked for.
import { cachedWithinPlan } from '../artifacts/plan-bounds.ts';
import { setPresent } from '../set-present.ts';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import type { POLICY_STATUSES } from '../../shared/vocabulary.ts';
import {
  commonListFields,
  commonOptionalFields,
  loadLinks,
  needsFor,
  stamp,
  toFilter,
  type ArtifactLinks,
  type ArtifactListInput,
} from '../artifacts/read.ts';
import { listPolicies as listPolicyRows, type PolicyRow } from '../../storage/db/repositories/artifacts/policies.ts';
import type { Policy } from './schema.ts';

export const POLICY_OPTIONAL_FIELDS = [
  'policyBehavior',
  'mappedFrameworkIds',
  'mappedControlIds',
  'notRelevantReason',
  'versionNumber',
  'effortEstimate',
  'recurrence',
  'source',
  'publishedBy',
  'publishedOn',
  'addedBy',
  'addedOn',
  'lastModifiedBy',
  'modifiedOn',
] as const;
export type PolicyOptionalField = (typeof POLICY_OPTIONAL_FIELDS)[number];
export type PolicyStatus = (typeof POLICY_STATUSES)[number];

export type ListPoliciesInput = ArtifactListInput<PolicyStatus, PolicyOptionalField>;

export async function listPolicies({ ctx, input }: { ctx: Context; input: ListPoliciesInput }): Promise<Policy[]> {
  authorize(ctx.actor, 'policy', 'read');
  return cachedWithinPlan(ctx, 'policies.list', input, () => compute(ctx, input));
}

/** The default list fields of a policy (get-one starts from them too). */
export function policyListItem(row: PolicyRow, links: ArtifactLinks): Policy {
  return {
    policyId: row.id,
    policyCustomId: row.customId,
    policyName: row.name,
    ...commonListFields(row, links),
    status: row.status as PolicyStatus,
    aiDetectedGaps: row.aiDetectedGaps,
  };
}

async function compute(ctx: Context, input: ListPoliciesInput): Promise<Policy[]> {
  const fields = new Set<string>(input.fields ?? []);
  const rows = await listPolicyRows(ctx.db.kysely, ctx.actor.organizationId, toFilter(input));
  const links = await loadLinks(
    ctx,
    'policy',
    rows.map((r) => r.id),
    needsFor(fields),
  );
  return rows.map((row) => {
    const policy: Policy = { ...policyListItem(row, links), ...commonOptionalFields(row, links, fields) };
    if (fields.has('policyBehavior')) setPresent(policy, 'policyBehavior', row.policyBehavior);
    if (fields.has('versionNumber')) setPresent(policy, 'versionNumber', row.versionNumber);
    if (fields.has('publishedBy')) setPresent(policy, 'publishedBy', stamp(links, row.publishedBy));
    if (fields.has('publishedOn')) policy.publishedOn = row.publishedOn;
    return policy;
  });
}
