// Updates a finding's assignee, report link and custom field values; nothing else is writable.
// Returns the finding exactly as getVulnerability (without parameters) does.
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound, validationFailed, type FieldIssue } from '../../shared/errors.ts';
import { fingerprintSubjects, jsonFingerprint } from '../idempotency/fingerprint.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../../shared/data-versions.ts';
import { findVulnerability, listCustomFieldDefinitions } from '../../storage/db/repositories/vulnerabilities/vulnerabilities.ts';
import {
  findPersonIdByEmail,
  replaceAssignee,
  replaceCustomFieldValues,
  updateVulnerability,
} from '../../storage/db/repositories/vulnerabilities/vulnerability-writes.ts';
import { changedFields } from '../events/changes.ts';
import { recordEvents } from '../events/record.ts';
import { webLinkProblem } from '../web-link.ts';
import { buildVulnerabilityDetail } from './get.ts';
import { parseVulnerabilityId, publicVulnerabilityId, vulnerabilityNotFound } from './shape.ts';
import type { VulnerabilityDetail } from './schema.ts';
import { MAX_CUSTOM_FIELD_VALUE, type CustomFieldInput, type UpdateVulnerabilityBody } from './write-schema.ts';

/** The one spelling an entry used for `a`/`b`, or an issue when it used none or two that disagree. */
function either(
  entry: CustomFieldInput,
  a: 'customFieldId' | 'fieldValue',
  b: 'id' | 'value',
  field: string,
  issues: FieldIssue[],
): string | undefined {
  const first = entry[a];
  const second = entry[b];
  if (first === undefined && second === undefined) {
    issues.push({ field, message: `needs ${a} (or ${b})` });
    return undefined;
  }
  if (first !== undefined && second !== undefined && first !== second) {
    issues.push({ field, message: `gives ${a} and ${b} with different values; send one` });
    return undefined;
  }
  return first ?? second;
}

export async function updateVulnerabilityFields({
  ctx,
  input,
}: {
  ctx: Context;
  input: { vulnerabilityId: string; idempotency: IdempotencyInput; body: UpdateVulnerabilityBody };
}): Promise<Outcome<VulnerabilityDetail>> {
  authorize(ctx.actor, 'vulnerability', 'write');
  const org = ctx.actor.organizationId;
  const id = parseVulnerabilityId(input.vulnerabilityId);
  if (!id) throw vulnerabilityNotFound(input.vulnerabilityId);
  const body = input.body;
  // The finding as named in its canonical spelling, so every spelling of the ID shares fingerprints.
  const target = publicVulnerabilityId(id.source, id.findingKey);
  const fingerprints = fingerprintSubjects('vulnerabilities.update', target, input.idempotency.legacySubject).map((s) =>
    jsonFingerprint(s, body),
  );

  const outcome = await runIdempotent(keyScopeOf(ctx, input.idempotency), fingerprints, async (trx) => {
    // First: the bump locks the organization's row, so the finding read next is the one this
    // update changes (a concurrent update of it waits), and its event's `before` is exact.
    await bumpDataVersions(trx, org, WRITES['vulnerabilities.update']);
    const row = await findVulnerability(trx, org, id.source, id.findingKey);
    if (!row) throw notFound('Vulnerability');

    const issues: FieldIssue[] = [];
    if (body.reportLink !== undefined && body.reportLink !== '') {
      const problem = webLinkProblem(body.reportLink);
      if (problem)
        issues.push({ field: 'reportLink', message: problem.startsWith('must be') ? `${problem}, or "" to clear the link` : problem });
    }
    let assigneeId: string | undefined;
    if (body.assigneeEmail !== undefined) {
      assigneeId = await findPersonIdByEmail(trx, org, body.assigneeEmail);
      if (!assigneeId) issues.push({ field: 'assigneeEmail', message: 'no person with this email in the organization' });
    }
    const values = new Map<string, string>();
    if (body.customFields !== undefined) {
      const definitions = new Map((await listCustomFieldDefinitions(trx, org, 'vulnerability')).map((d) => [d.id, d]));
      for (const [i, entry] of body.customFields.entries()) {
        const at = `customFields[${i}]`;
        const fieldId = either(entry, 'customFieldId', 'id', at, issues);
        const value = either(entry, 'fieldValue', 'value', at, issues);
        if (fieldId === undefined || value === undefined) continue;
        const definition = definitions.get(fieldId);
        if (!definition)
          issues.push({ field: `${at}.customFieldId`, message: 'is not a custom field of vulnerabilities in this organization' });
        else if (values.has(fieldId)) issues.push({ field: `${at}.customFieldId`, message: 'appears more than once' });
        else if (value.length > MAX_CUSTOM_FIELD_VALUE)
          issues.push({ field: `${at}.fieldValue`, message: `must be at most ${MAX_CUSTOM_FIELD_VALUE} characters` });
        else if (definition.fieldType === 'dropdown' && value !== '' && !definition.options.includes(value)) {
          issues.push({
            field: `${at}.fieldValue`,
            message: `must be one of the field's options: ${definition.options.join(', ')} (or "" to clear)`,
          });
        } else values.set(fieldId, value);
      }
    }
    if (issues.length > 0) throw validationFailed(issues);

    // The finding as GET answered it before the change: the event names the fields that changed.
    const before = await buildVulnerabilityDetail(trx, org, row);
    const now = ctx.now();
    if (assigneeId) await replaceAssignee(trx, org, row.id, assigneeId);
    await replaceCustomFieldValues(trx, org, row.id, values);
    await updateVulnerability(trx, org, row.id, {
      reportLink: body.reportLink === undefined ? undefined : body.reportLink === '' ? null : body.reportLink,
      modifiedOn: now,
    });
    const updated = await findVulnerability(trx, org, id.source, id.findingKey);
    const after = await buildVulnerabilityDetail(trx, org, updated!);
    const changes = changedFields(before, after);
    if (Object.keys(changes).length > 0) {
      await recordEvents(trx, org, [
        { type: 'vulnerability.updated', resourceId: after.vulnerabilityId, occurredAt: now, data: { changes } },
      ]);
    }
    return { kind: 'updated', resource: after };
  });
  // Committed: every node reads the new data version before this is acknowledged.
  await announceOrganizationChange(ctx, org);
  return outcome;
}
