// How an organization's plan bounds its program (docs/program-documents.md, "The organization's plan bounds every door"). The
// pipeline and the export call these with the plan read from the organization's row, so every
// door (PUT/GET /v1/program, the console's program page, `cds program`) is bounded the same way
// whoever acts: a kind whose resources the plan excludes can be neither named nor exported, nor
// can the link fields of included kinds that point at excluded records (an evidence entry's
// `controls` under a plan without controls). Links are left as they are, neither read nor written:
// a field left out keeps its current value (src/domain/kinds/normalize.ts), so an apply never clears them.
import { ServiceError } from '../../shared/errors.ts';
import type { ComplianceEffects } from './effects.ts';
import type { ProgramKind } from './registry.ts';
import { PROGRAM_KINDS } from './registry.ts';

/** Whether the plan includes every resource of the kind. */
export const kindWithinPlan = (kind: Pick<ProgramKind, 'resources'>, plan: ReadonlySet<string>) => kind.resources.every((r) => plan.has(r));

/** The kind's link fields that point at resources the plan excludes. */
const hiddenLinks = (kind: Pick<ProgramKind, 'links'>, plan: ReadonlySet<string>) =>
  Object.entries(kind.links ?? {})
    .filter(([, resource]) => !plan.has(resource))
    .map(([field]) => field);

/**
 * Throws 403 plan_restricted unless the plan includes every kind the document names and every
 * resource its entries link to, naming each excluded kind and link field (`evidence[].controls`)
 * at once. Checked on the document's outline only, before its entries are validated, as scopes are.
 */
export function assertDocumentWithinPlan(document: unknown, plan: ReadonlySet<string>): void {
  if (!document || typeof document !== 'object') return;
  const doc = document as Record<string, unknown>;
  const kinds: string[] = [];
  const links: string[] = [];
  const resources = new Set<string>();
  for (const kind of PROGRAM_KINDS) {
    const entries = doc[kind.name];
    if (entries === undefined) continue;
    if (!kindWithinPlan(kind, plan)) {
      kinds.push(kind.name);
      for (const r of kind.resources) if (!plan.has(r)) resources.add(r);
      continue;
    }
    if (!Array.isArray(entries)) continue;
    for (const field of hiddenLinks(kind, plan)) {
      // null (clear) and [] (empty) write the links too: any value of the field is refused.
      if (entries.some((e) => e !== null && typeof e === 'object' && (e as Record<string, unknown>)[field] !== undefined)) {
        links.push(`${kind.name}[].${field}`);
        resources.add(kind.links![field]);
      }
    }
  }
  if (kinds.length === 0 && links.length === 0) return;
  const named = [
    ...(kinds.length > 0 ? [`the kinds ${kinds.join(', ')}`] : []),
    ...(links.length > 0 ? [`the links ${links.join(', ')}`] : []),
  ];
  throw new ServiceError(
    'plan_restricted',
    `This document names ${named.join(' and ')}: ${[...resources].join(', ')} data, which the organization's plan does not include.`,
  );
}

/** An exported entry without the link fields to resources the plan excludes. */
export function entryWithinPlan<E extends object>(kind: Pick<ProgramKind, 'links'>, entry: E, plan: ReadonlySet<string>): E {
  const hidden = hiddenLinks(kind, plan);
  if (hidden.length === 0) return entry;
  const out = { ...entry } as Record<string, unknown>;
  for (const field of hidden) delete out[field];
  return out as unknown as E;
}

/** A plan's effects without the controls or frameworks the plan excludes. */
export function effectsWithinPlan(effects: ComplianceEffects, plan: ReadonlySet<string>): ComplianceEffects {
  return {
    controls: plan.has('control') ? effects.controls : [],
    frameworks: plan.has('framework') ? effects.frameworks : [],
  };
}
