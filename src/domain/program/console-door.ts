// The program verbs for a console administrator (POST /console/api/program): the administrator's
// own organization, the changes stamped with the administrator (actor-stamp.ts), and an apply that
// changes something recorded in the audit log in the same transaction (an apply that changes
// nothing writes no entry, as it writes nothing else).
import type { AdminContext } from '../context.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { recordAudit } from '../console/audit.ts';
import type { ProgramPlan } from './plan-schema.ts';
import type { DocumentCheck } from './precheck.ts';
import { applyProgramIn, planProgram, type ProgramContext } from './verbs.ts';

/** What an audit entry says of an apply: its source and how much it changed. */
export function applyAuditLabel(plan: ProgramPlan, source: string): string {
  let created = 0;
  let updated = 0;
  let deleted = 0;
  for (const c of Object.values(plan.counts)) {
    created += c.created;
    updated += c.updated;
    deleted += c.deleted;
  }
  return `${source.slice(-200)}: ${created} created, ${updated} updated, ${deleted} deleted`;
}

export async function programForAdmin({
  ctx,
  input,
}: {
  ctx: AdminContext;
  input: { document: unknown; checked?: DocumentCheck; prune: boolean; mode: 'plan' | 'apply'; source: string };
}): Promise<ProgramPlan> {
  const organizationId = ctx.actor.organizationId;
  const pctx: ProgramContext = { ...ctx, stamp: ctx.actor.id ? { kind: 'admin', adminId: ctx.actor.id } : { kind: 'service' } };
  const verbInput = { organizationId, document: input.document, checked: input.checked, prune: input.prune };
  if (input.mode === 'plan') return planProgram({ ctx: pctx, input: verbInput });
  const plan = await ctx.db.kysely.transaction().execute(async (trx) => {
    const applied = await applyProgramIn(trx, pctx, verbInput);
    if (applied.changed) {
      await recordAudit(trx, {
        organizationId,
        actor: ctx.actor,
        action: 'program.apply',
        target: { type: 'program', id: organizationId, label: applyAuditLabel(applied, input.source) },
        at: ctx.now(),
      });
    }
    return applied;
  });
  if (plan.changed) await announceOrganizationChange(pctx, organizationId);
  return plan;
}
