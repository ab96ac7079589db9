// What an organization's plan lets an event show (issue 28, items 1 and 2). The product's rule is
// that a plan that excludes a resource excludes it everywhere: its events are not in the feed, not
// delivered to webhooks (whatever an endpoint subscribed to, "*" included), and an event of an
// included resource does not name a record of an excluded one. Plans change after events are
// recorded, so both the feed and each webhook attempt apply the plan as it is when they read.
import { RESOURCES } from '../auth/scopes.ts';
import type { EventType } from './schema.ts';

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

/**
 * The event's data as the plan lets it be shown: a computed control event names its cause (an
 * evidence, policy or test event and that record's ID), which is left out when the plan excludes
 * the cause's resource. Returns the same object when nothing is hidden.
 */
export function dataWithinPlan<D>(plan: ReadonlySet<string>, type: EventType | string, data: D): D {
  if (type !== 'control.status_changed') return data;
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
