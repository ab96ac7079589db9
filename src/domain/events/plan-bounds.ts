// What an organization's plan lets an event show (issue 28, items 1 and 2). The product's rule is
// that a plan that excludes a resource excludes it everywhere: its events are not in the feed, not
// delivered to webhooks (whatever an endpoint subscribed to, "*" included), and an event of an
// included resource does not name a record of an excluded one. Plans change after events are
// recorded, so both the feed and each webhook attempt apply the plan as it is when they read.
import { RESOURCES } from '../auth/scopes.ts';
import type { EventType } from './schema.ts';
import { hiddenMappings, mappingsWithinPlan } from '../artifacts/plan-bounds.ts';

const planResources: ReadonlySet<string> = new Set(RESOURCES);

/** The plan resource an event type is about, or undefined for types no plan bounds (credentials, webhook tests). */
export function planResourceOf(type: string): string | undefined {
  const resource = type.slice(0, type.indexOf('.'));
  return planResources.has(resource) ? resource : undefined;
}

/** Whether the plan includes the resource of an event of `type`. */
export function planIncludesEvent(plan: ReadonlySet<string>, type: string): boolean {
  const resource = planResourceOf(type);
  return resource === undefined || plan.has(resource);
}

/** The artifact resources whose events carry the record's mappings (`data.<resource>` of `.created`, `data.changes` of `.updated`). */
const MAPPED_RECORDS: ReadonlySet<string> = new Set(['evidence', 'policy', 'test']);

/**
 * The event's data as the plan lets it be shown: a computed control event names its cause (an
 * evidence, policy or test event and that record's ID), which is left out when the plan excludes
 * the cause's resource; an evidence, policy or test record's created event (the GET shape) shows
 * its mappings to excluded resources empty, and its updated event leaves out their changes, as
 * the record's GET does (artifacts/plan-bounds.ts). Returns the same object when nothing is hidden.
 */
export function dataWithinPlan<D>(plan: ReadonlySet<string>, type: EventType | string, data: D): D {
  if (type === 'control.status_changed') return causeWithinPlan(plan, data);
  const resource = planResourceOf(type);
  const property = resource !== undefined && MAPPED_RECORDS.has(resource) ? resource : undefined;
  const hidden = hiddenMappings(plan);
  if (property === undefined || hidden.length === 0 || data === null || typeof data !== 'object') return data;
  const fields = data as Record<string, unknown>;
  if (type.endsWith('.created') && fields[property] !== null && typeof fields[property] === 'object')
    return { ...fields, [property]: mappingsWithinPlan({ ...(fields[property] as object) }, plan) } as D;
  const changes = fields.changes;
  if (type.endsWith('.updated') && changes !== null && typeof changes === 'object' && hidden.some((f) => f in changes)) {
    const shown = { ...(changes as Record<string, unknown>) };
    for (const field of hidden) delete shown[field];
    return { ...fields, changes: shown } as D;
  }
  return data;
}

function causeWithinPlan<D>(plan: ReadonlySet<string>, data: D): D {
  const cause = (data as { cause?: { type?: unknown } }).cause;
  if (cause === undefined || typeof cause.type !== 'string' || planIncludesEvent(plan, cause.type)) return data;
  const { cause: _hidden, ...shown } = data as Record<string, unknown>;
  return shown as D;
}

/** The resource types of `types` the plan excludes, each once (to name them in a refusal). */
export function excludedResources(plan: ReadonlySet<string>, types: readonly string[]): string[] {
  const out = new Set<string>();
  for (const type of types) {
    const resource = planResourceOf(type);
    if (resource !== undefined && !plan.has(resource)) out.add(resource);
  }
  return [...out];
}
