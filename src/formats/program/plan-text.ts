// A program plan as a person reads it at a terminal (`cds program plan|apply`; the `compliance`
// CLI has its own copy, packages/cli/src/commands/program.ts, as it imports nothing from the
// server): a summary line, the counts per kind, every change with its fields before and after,
// the records deleted, the controls whose status flips and the framework percentages that move.
// The shape is the plan's (src/domain/program/plan-schema.ts), read structurally.

type Progress = Record<string, { total: number; percentage: number } & Record<string, number>>;

export interface PlanForText {
  changed: boolean;
  counts: Record<string, { created: number; updated: number; deleted: number; unchanged: number }>;
  changes: Array<{
    kind: string;
    key: string;
    id: string;
    action: 'create' | 'update' | 'delete';
    fields?: Record<string, { before?: unknown; after?: unknown }>;
  }>;
  effects: {
    controls: Array<{ controlId: string; key: string; before: string; after: string }>;
    frameworks: Array<{ frameworkId: string; key: string; before: Progress; after: Progress }>;
  };
}

/** Most characters of a value shown; longer ones end with `…`. */
const VALUE_WIDTH = 120;

function shown(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > VALUE_WIDTH ? `${text.slice(0, VALUE_WIDTH - 1)}…` : text;
}

const SIGN = { create: '+', update: '~', delete: '-' } as const;

export function planText(plan: PlanForText, options: { applied?: boolean } = {}): string {
  const total = { created: 0, updated: 0, deleted: 0, unchanged: 0 };
  for (const c of Object.values(plan.counts)) {
    total.created += c.created;
    total.updated += c.updated;
    total.deleted += c.deleted;
    total.unchanged += c.unchanged;
  }
  const verb = options.applied ? ['created', 'updated', 'deleted'] : ['to create', 'to update', 'to delete'];
  const lines: string[] = [];
  lines.push(
    plan.changed
      ? `${options.applied ? 'Applied' : 'Plan'}: ${total.created} ${verb[0]}, ${total.updated} ${verb[1]}, ${total.deleted} ${verb[2]} (${total.unchanged} unchanged).`
      : `No changes: the organization already holds this program (${total.unchanged} records unchanged).`,
  );
  const kinds = Object.entries(plan.counts);
  if (kinds.length > 0) {
    const width = Math.max(...kinds.map(([k]) => k.length));
    lines.push('');
    for (const [kind, c] of kinds)
      lines.push(`  ${kind.padEnd(width)}  ${c.created} created, ${c.updated} updated, ${c.deleted} deleted, ${c.unchanged} unchanged`);
  }
  if (plan.changes.length > 0) {
    lines.push('', options.applied ? 'Changes:' : 'Changes (+ create, ~ update, - delete):');
    for (const change of plan.changes) {
      lines.push(`  ${SIGN[change.action]} ${change.kind} ${change.key}${change.action === 'delete' ? ` (${change.id})` : ''}`);
      if (change.action === 'update')
        for (const [field, { before, after }] of Object.entries(change.fields ?? {}))
          lines.push(`      ${field}: ${shown(before)} → ${shown(after)}`);
    }
  }
  const deletions = plan.changes.filter((c) => c.action === 'delete');
  if (deletions.length > 0) {
    lines.push(
      '',
      `Deleted: ${deletions.length} record${deletions.length === 1 ? '' : 's'} (${deletions.map((d) => `${d.kind} ${d.key}`).join(', ')}).`,
    );
  }
  if (plan.effects.controls.length > 0) {
    lines.push('', 'Controls whose status flips:');
    for (const c of plan.effects.controls) lines.push(`  ${c.key} (${c.controlId}): ${c.before} → ${c.after}`);
  }
  const moves: string[] = [];
  for (const f of plan.effects.frameworks) {
    for (const [part, after] of Object.entries(f.after)) {
      const before = f.before[part];
      if (before === undefined || before.percentage !== after.percentage)
        moves.push(`  ${f.key} ${part}: ${before?.percentage ?? 0}% → ${after.percentage}%`);
    }
  }
  if (moves.length > 0) lines.push('', 'Framework percentages that move:', ...moves);
  return lines.join('\n');
}
