// One way to write a policy for the lifecycle moves (submit, approve, publish, request review) and
// PATCH, the same as evidence/write.ts does for evidence: under an Idempotency-Key, in one
// transaction that bumps the policies data version first (locking the organization's row), decides
// the change from the policy as it is, writes it stamped with the caller, and records with it:
// - `policy.status_changed` when the status moved;
// - `policy.updated` with the fields other than `status` that changed, as GET names them (with
//   `documents` when the write added some), when any changed besides the stamps
//   (`lastModifiedBy`, `modifiedOn`);
// - the computed `control.status_changed` and `framework.progress_changed` (complianceChanges),
//   caused by the status change when there is one, otherwise by the update (relevance).
// Answers the policy as GET /v1/policies/{policyId} does.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound } from '../../shared/errors.ts';
import { fingerprintSubjects, jsonFingerprint } from '../idempotency/fingerprint.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../../shared/data-versions.ts';
import type { Database } from '../../storage/db/schema.ts';
import { findPolicy, type PolicyRow } from '../../storage/db/repositories/artifacts/policies.ts';
import {
  insertPolicyDocumentLinks,
  insertPolicyVersion,
  updatePolicyColumns,
  type NewLink,
  type PolicyChange,
} from '../../storage/db/repositories/artifacts/artifact-writes.ts';
import { actorPersonId } from '../people/actor-stamp.ts';
import { changedFields } from '../events/changes.ts';
import { complianceChanges } from '../events/compliance-changes.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import { policyState } from '../compliance/rules.ts';
import type { POLICY_STATUSES } from '../../shared/vocabulary.ts';
import { buildPolicyDetail } from './get.ts';
import type { PolicyDetail } from './schema.ts';

type PolicyStatus = (typeof POLICY_STATUSES)[number];

/** What a write changes, decided from the policy as it is (throwing validationFailed when it may not). */
export interface PolicyWrite {
  columns: Omit<PolicyChange, 'lastModifiedBy' | 'modifiedOn'>;
  documents?: NewLink[];
  /** a published version, stamped with the caller and now */
  version?: { versionName: string };
}

export interface DecidePolicyInput {
  trx: Kysely<Database>;
  org: string;
  row: PolicyRow;
  now: number;
  actorId: string;
}

const STAMPS = new Set(['lastModifiedBy', 'modifiedOn']);

export async function writePolicy({
  ctx,
  policyId,
  operation,
  idempotency,
  body,
  decide,
}: {
  ctx: Context;
  policyId: string;
  operation: string;
  idempotency: IdempotencyInput;
  body: unknown;
  decide: (input: DecidePolicyInput) => Promise<PolicyWrite>;
}): Promise<Outcome<PolicyDetail>> {
  authorize(ctx.actor, 'policy', 'write');
  const org = ctx.actor.organizationId;
  const fingerprints = fingerprintSubjects(operation, policyId).map((s) => jsonFingerprint(s, body ?? {}));
  const outcome = await runIdempotent(keyScopeOf(ctx, idempotency), fingerprints, async (trx) => {
    await bumpDataVersions(trx, org, WRITES['policies.update']);
    const row = await findPolicy(trx, org, policyId);
    if (!row) throw notFound('Policy');
    const now = ctx.now();
    const actorId = await actorPersonId(trx, org, { kind: 'credential', credentialId: ctx.actor.credentialId });
    const change = await decide({ trx, org, row, now, actorId });
    const documents = change.documents ?? [];
    // The events compare GET's answer before and after; with the documents when some are added.
    const expansions = documents.length > 0 ? (['documents'] as const) : ([] as const);

    const before = await buildPolicyDetail(trx, org, row, expansions);
    const columns: PolicyChange = { ...change.columns, lastModifiedBy: actorId, modifiedOn: now };
    if (change.version) {
      await insertPolicyVersion(trx, org, row.id, { versionName: change.version.versionName, publishedBy: actorId, publishedOn: now });
      Object.assign(columns, { versionNumber: change.version.versionName, publishedBy: actorId, publishedOn: now });
    }
    await updatePolicyColumns(trx, org, row.id, columns);
    await insertPolicyDocumentLinks(trx, org, row.id, { by: actorId, on: now }, documents);
    const updated = (await findPolicy(trx, org, row.id))!;
    const afterWithDocuments = await buildPolicyDetail(trx, org, updated, expansions);

    const events: NewEvent[] = [];
    const statusChanged = row.status !== updated.status;
    if (statusChanged) {
      events.push({
        type: 'policy.status_changed',
        resourceId: row.id,
        occurredAt: now,
        data: { before: row.status as PolicyStatus, after: updated.status as PolicyStatus },
      });
    }
    const { status: _status, ...changes } = changedFields(before, afterWithDocuments);
    if (Object.keys(changes).some((field) => !STAMPS.has(field))) {
      events.push({ type: 'policy.updated', resourceId: row.id, occurredAt: now, data: { changes } });
    }
    events.push(
      ...(await complianceChanges(trx, org, {
        type: 'policy',
        id: row.id,
        before: policyState(row.isRelevant, row.status),
        after: policyState(updated.isRelevant, updated.status),
        cause: { type: statusChanged ? 'policy.status_changed' : 'policy.updated', resourceId: row.id },
        occurredAt: now,
      })),
    );
    await recordEvents(trx, org, events);
    // The answer is GET's default shape: without the documents expansion.
    const { documents: _documents, ...after } = afterWithDocuments;
    return { kind: 'updated', resource: after };
  });
  await announceOrganizationChange(ctx, org);
  return outcome;
}
