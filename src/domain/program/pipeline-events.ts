// The events phase of the program pipeline (pipeline.ts), in the same transaction as the writes:
// each kind's own events, then its records' created and deleted events (lifecycle-events.ts), then
// the computed ones (a control's status, a framework's progress) from the compliance rule over the
// organization before and after the writes (effects.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { loadNameLookups, type NameLookups } from '../../storage/db/repositories/program/program-names.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import { shareTheLoop } from '../../shared/event-loop-turns.ts';
import { EVENT_CHUNK, lifecycleEvents, recordsOwnCreations } from './lifecycle-events.ts';
import type { EventContext, ProgramKindName, WriteContext } from '../kinds/kind.ts';
import type { ProgramKind } from './registry.ts';
import { complianceState, effectsBetween, type ComplianceState } from './effects.ts';
import { effectsWithinPlan } from './plan-bounds.ts';
import type { ProgramPlan } from './plan-schema.ts';
import type { KindChanges } from './diff.ts';
import type { CreatedEntries } from './change-chunks.ts';

/** The kinds whose changes can move the compliance rule's answers. */
const COMPLIANCE_KINDS: ReadonlySet<ProgramKindName> = new Set(['frameworks', 'controls', 'policies', 'evidence', 'tests']);

/** The compliance rule's answers before the writes, when a change can move them (else undefined: no computed events). */
export async function complianceBefore(
  trx: Kysely<Database>,
  organizationId: string,
  touched: readonly ProgramKind[],
  changes: KindChanges,
): Promise<ComplianceState | undefined> {
  const compliance = touched.some(
    (k) => COMPLIANCE_KINDS.has(k.name) && changes.get(k.name)!.some((c) => (k.touchesCompliance ? k.touchesCompliance(c) : true)),
  );
  return compliance ? await complianceState(trx, organizationId) : undefined;
}

/** What the events phase is given besides the writes' context. */
export interface EventsInput {
  touched: readonly ProgramKind[];
  changes: KindChanges;
  created: CreatedEntries;
  /** the compliance rule's answers before the writes (complianceBefore) */
  before: ComplianceState | undefined;
  /** the organization's plan: the effects the plan answers are those within it */
  orgPlan: ReadonlySet<string>;
  mode: 'plan' | 'apply';
}

/**
 * Records the events of an apply (a plan records none: its answer is the changes and effects, never
 * the events) and fills `plan.effects`.
 */
export async function pipelineEvents(wctx: WriteContext, input: EventsInput, plan: ProgramPlan): Promise<void> {
  const { trx, organizationId: org } = wctx;
  let afterState: Promise<ComplianceState> | undefined;
  const stateAfter = () => (afterState ??= complianceState(trx, org));
  if (input.mode === 'apply') await kindEvents(wctx, input, stateAfter);
  const events: NewEvent[] = [];
  if (input.before) {
    const after = await stateAfter();
    const effects = effectsBetween(input.before, after);
    const shown = effectsWithinPlan(effects, input.orgPlan);
    plan.effects = {
      controls: shown.controls.map((c) => ({ ...c, key: wctx.keys.keyOf('control', c.controlId) })),
      frameworks: shown.frameworks.map((f) => ({ ...f, key: wctx.keys.keyOf('framework', f.frameworkId) })),
    };
    // Recorded whatever the plan (they are the organization's history); the events feed and
    // webhooks show them only within the plan (events/plan-bounds.ts).
    const now = wctx.now;
    for (const c of effects.controls)
      events.push({ type: 'control.status_changed', resourceId: c.controlId, occurredAt: now, data: { before: c.before, after: c.after } });
    for (const f of effects.frameworks)
      events.push({
        type: 'framework.progress_changed',
        resourceId: f.frameworkId,
        occurredAt: now,
        data: { before: f.before, after: f.after },
      });
  }
  if (input.mode === 'apply') await recordEvents(trx, org, events);
}

/**
 * Per kind: its own events, then its records' created and deleted events. Recorded kind by kind and
 * a chunk at a time (the numbers are consecutive all the same), so an apply holds one chunk of
 * events at a time.
 */
async function kindEvents(wctx: WriteContext, input: EventsInput, stateAfter: () => Promise<ComplianceState>): Promise<void> {
  const { trx, organizationId: org } = wctx;
  const { created } = input;
  let names: Promise<NameLookups> | undefined;
  const ectx: EventContext = { ...wctx, names: () => (names ??= loadNameLookups(trx, org)) };
  for (const kind of input.touched) {
    const all = input.changes.get(kind.name)!;
    // a kind's own events are of updates, and of creations only where its kind records them itself
    const owns = recordsOwnCreations(kind);
    const shown = owns ? all : all.filter((c) => c.action !== 'create');
    if (kind.events)
      for (const chunk of created.chunks(kind, shown)) {
        if (owns) await created.materialize(kind, chunk);
        const own = await kind.events(ectx, chunk);
        created.release(chunk);
        for (let j = 0; j < own.events.length; j += EVENT_CHUNK) await recordEvents(trx, org, own.events.slice(j, j + EVENT_CHUNK));
        await shareTheLoop();
      }
    await lifecycleEvents(
      wctx,
      kind,
      all,
      (c) => created.entryOf(kind, c),
      async () => (await stateAfter()).frameworks,
      async (chunk) => void (await recordEvents(trx, org, chunk)),
    );
  }
}
