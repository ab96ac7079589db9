// Changes a control's scope (with its reason) and assignees: PATCH /v1/controls/{controlId}.
// Answers the control as GET /v1/controls/{controlId} does. Records `control.updated` with the
// fields that changed and, since the scope decides what counts, the computed
// `control.status_changed` and `framework.progress_changed` (events/control-scope-changes.ts) in
// the same transaction. A PATCH that changes nothing writes nothing and records no event; an empty
// body is refused. docs/decisions/program-writes.md, "Control scope", holds the decisions.
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound, validationFailed, type FieldIssue } from '../../shared/errors.ts';
import { fingerprintSubjects, jsonFingerprint } from '../idempotency/fingerprint.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../../shared/data-versions.ts';
import { findControl, loadPeopleByIds } from '../../storage/db/repositories/compliance/controls.ts';
import {
  findPeopleByEmails,
  replaceControlAssignees,
  updateControlScope,
} from '../../storage/db/repositories/compliance/control-writes.ts';
import { actorPersonId, isActorPerson } from '../people/actor-stamp.ts';
import { changedFields } from '../events/changes.ts';
import { controlScopeChanges } from '../events/control-scope-changes.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { buildControlDetail } from './get.ts';
import type { ControlDetail } from './schema.ts';
import { scopeAfter } from './scope-moves.ts';
import type { UpdateControlBody } from './write-schema.ts';

export interface UpdateControlInput {
  controlId: string;
  idempotency: IdempotencyInput;
  body: UpdateControlBody;
}

/** The fields computed from the artifacts: their moves have their own event (control.status_changed). */
const COMPUTED = new Set(['status', 'controlCompliancePercentage']);

/** GET's answer plus `markedOutOfScopeBy` (a field of the control the list shows): what control.updated compares. */
async function eventView(db: Kysely<Database>, org: string, detail: ControlDetail): Promise<Record<string, unknown>> {
  const row = await findControl(db, org, detail.controlId);
  const view: Record<string, unknown> = { ...detail };
  if (row?.markedOutOfScopeBy)
    view.markedOutOfScopeBy = (await loadPeopleByIds(db, org, [row.markedOutOfScopeBy])).get(row.markedOutOfScopeBy);
  return view;
}

export async function updateControl({ ctx, input }: { ctx: Context; input: UpdateControlInput }): Promise<Outcome<ControlDetail>> {
  authorize(ctx.actor, 'control', 'write');
  const org = ctx.actor.organizationId;
  const body = input.body;
  if (body.controlScope === undefined && body.outOfScopeReason === undefined && body.assigneeEmails === undefined) {
    throw validationFailed([{ field: 'body', message: 'send at least one of controlScope, outOfScopeReason, assigneeEmails' }]);
  }
  const fingerprints = fingerprintSubjects('controls.update', input.controlId, input.idempotency.legacySubject).map((s) =>
    jsonFingerprint(s, body),
  );

  const outcome = await runIdempotent(keyScopeOf(ctx, input.idempotency), fingerprints, async (trx) => {
    // First: the bump locks the organization's row, so the control read next is the one this
    // update changes, and the events' `before` is exact.
    await bumpDataVersions(trx, org, WRITES['controls.update']);
    const row = await findControl(trx, org, input.controlId);
    if (!row) throw notFound('Control');

    const issues: FieldIssue[] = [];
    const scope = scopeAfter({ scope: row.scope, reason: row.outOfScopeReason }, body);
    if (Array.isArray(scope)) issues.push(...scope);
    let assigneeIds: string[] | undefined;
    if (body.assigneeEmails !== undefined) {
      const people = await findPeopleByEmails(trx, org, body.assigneeEmails);
      const seen = new Set<string>();
      assigneeIds = [];
      for (const [i, email] of body.assigneeEmails.entries()) {
        const lower = email.toLowerCase();
        const id = people.get(lower);
        if (seen.has(lower)) issues.push({ field: `assigneeEmails[${i}]`, message: 'appears more than once' });
        else if (!id || isActorPerson(id))
          issues.push({ field: `assigneeEmails[${i}]`, message: 'no person with this email in the organization' });
        else assigneeIds.push(id);
        seen.add(lower);
      }
    }
    if (issues.length > 0 || Array.isArray(scope)) throw validationFailed(issues);

    const plan = ctx.actor.plan;
    const before = await buildControlDetail(trx, org, plan, { controlId: row.id });
    const currentAssignees = before.assignees.map((a) => a.email.toLowerCase());
    const assigneesChange =
      body.assigneeEmails !== undefined &&
      (currentAssignees.length !== body.assigneeEmails.length ||
        body.assigneeEmails.some((e, i) => e.toLowerCase() !== currentAssignees[i]));
    const scopeChange = scope.scope !== row.scope || scope.reason !== row.outOfScopeReason || scope.stamps;
    // Nothing to change: nothing written, no event; the answer is GET's.
    if (!assigneesChange && !scopeChange) return { kind: 'updated' as const, resource: before };

    const beforeView = await eventView(trx, org, before);
    const now = ctx.now();
    const stamp = await actorPersonId(trx, org, { kind: 'credential', credentialId: ctx.actor.credentialId });
    await updateControlScope(trx, org, row.id, {
      scope: scope.scope,
      outOfScopeReason: scope.reason,
      markedOutOfScopeBy: scope.scope === 'in_scope' ? null : scope.stamps ? stamp : row.markedOutOfScopeBy,
      lastModifiedBy: stamp,
      modifiedOn: now,
    });
    if (assigneesChange) await replaceControlAssignees(trx, org, row.id, assigneeIds!);

    const after = await buildControlDetail(trx, org, plan, { controlId: row.id });
    const changes = changedFields(beforeView, await eventView(trx, org, after));
    for (const field of COMPUTED) delete changes[field];
    const events: NewEvent[] = [{ type: 'control.updated', resourceId: row.id, occurredAt: now, data: { changes } }];
    events.push(
      ...(await controlScopeChanges(trx, org, {
        controlId: row.id,
        before: row.scope,
        after: scope.scope,
        cause: { type: 'control.updated', resourceId: row.id },
        occurredAt: now,
      })),
    );
    await recordEvents(trx, org, events);
    return { kind: 'updated' as const, resource: after };
  });
  // Committed: every node reads the new data version before this is acknowledged.
  await announceOrganizationChange(ctx, org);
  return outcome;
}
