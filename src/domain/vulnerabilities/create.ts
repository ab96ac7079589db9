// Creates one finding with source `api`, its affected resources and assignee, idempotent under its
// idempotency key. The body's shape (patterns, lengths, enums) is checked against its schema
// (write-schema.ts) before the verb runs; the rules that need the organization's data are checked here.
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { validationFailed } from '../../shared/errors.ts';
import { fingerprintSubjects, jsonFingerprint } from '../idempotency/fingerprint.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../../shared/data-versions.ts';
import { isUniqueViolation } from '../../storage/db/errors.ts';
import { findVulnerability } from '../../storage/db/repositories/vulnerabilities/vulnerabilities.ts';
import {
  hasFindingKey,
  findPersonIdByEmail,
  insertVulnerability,
  replaceAssignee,
} from '../../storage/db/repositories/vulnerabilities/vulnerability-writes.ts';
import { recordEvents } from '../events/record.ts';
import { buildVulnerabilityDetail } from './get.ts';
import type { VulnerabilityDetail } from './schema.ts';
import type { CreateVulnerabilityBody } from './write-schema.ts';

const duplicateKey = () =>
  validationFailed([{ field: 'vulnerabilityId', message: 'a finding with this key already exists in the organization' }]);

export async function createVulnerability({
  ctx,
  input,
}: {
  ctx: Context;
  input: { idempotency: IdempotencyInput; body: CreateVulnerabilityBody };
}): Promise<Outcome<VulnerabilityDetail>> {
  authorize(ctx.actor, 'vulnerability', 'write');
  const org = ctx.actor.organizationId;
  const body = input.body;
  const fingerprints = fingerprintSubjects('vulnerabilities.create', '', input.idempotency.legacySubject).map((s) =>
    jsonFingerprint(s, body),
  );

  const outcome = await runIdempotent(keyScopeOf(ctx, input.idempotency), fingerprints, async (trx) => {
    if (await hasFindingKey(trx, org, body.vulnerabilityId)) throw duplicateKey();
    let assigneeId: string | undefined;
    if (body.assigneeEmail !== undefined) {
      assigneeId = await findPersonIdByEmail(trx, org, body.assigneeEmail);
      if (!assigneeId) throw validationFailed([{ field: 'assigneeEmail', message: 'no person with this email in the organization' }]);
    }
    const now = ctx.now();
    // A concurrent create of the same key (another idempotency key) can pass the check above at
    // the same moment; the unique index then refuses the second insert.
    const id = await insertVulnerability(
      trx,
      {
        organizationId: org,
        source: 'api',
        findingKey: body.vulnerabilityId,
        title: body.title,
        status: body.status,
        severity: body.severity,
        cveId: body.vulnerabilityId.startsWith('CVE-') ? body.vulnerabilityId : '',
        fixAvailable: body.fixAvailable ?? null,
        description: body.description ?? null,
        remediation: body.remediation ?? null,
        stepsToReproduce: body.stepsToReproduce ?? null,
        firstSeen: body.firstSeen ?? now,
        addedOn: now,
      },
      (body.affectedResources ?? []).map((r) => ({ name: r.name, type: r.type, tags: r.tags ?? [] })),
    ).catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicateKey() : err;
    });
    if (assigneeId) await replaceAssignee(trx, org, id, assigneeId);
    await bumpDataVersions(trx, org, WRITES['vulnerabilities.create']);
    const row = await findVulnerability(trx, org, 'api', body.vulnerabilityId);
    const vulnerability = await buildVulnerabilityDetail(trx, org, row!);
    await recordEvents(trx, org, [
      { type: 'vulnerability.created', resourceId: vulnerability.vulnerabilityId, occurredAt: now, data: { vulnerability } },
    ]);
    return { kind: 'created', resource: vulnerability };
  });
  // Committed: every node reads the new data version before this is acknowledged.
  await announceOrganizationChange(ctx, org);
  return outcome;
}
