// Plans bound every answer (docs/program-documents.md, "The organization's plan bounds every
// door"): an artifact's mappings to records of a resource the organization's plan excludes are
// shown empty, as a control's mappedArtifacts leaves out the artifact kinds the plan excludes. The
// links stay stored; a plan that includes the resource again shows them at once (the cached answer
// is keyed by the plan). Evidence, policies and tests share these field names, in their answers and
// in their events' data (events/plan-bounds.ts).
import { cachedResult } from '../result-cache.ts';
import type { CachedVerb } from '../../shared/data-versions.ts';
import type { Context } from '../context.ts';

/** The mapping fields of an artifact's answer and the plan resource of the records they name. */
const MAPPING_RESOURCES = {
  mappedControls: 'control',
  mappedControlIds: 'control',
  mappedFrameworks: 'framework',
  mappedFrameworkIds: 'framework',
  mappedRequirements: 'framework',
  mappedTests: 'test',
} as const;

/** The mapping fields whose records the plan excludes. */
export const hiddenMappings = (plan: ReadonlySet<string>): string[] =>
  Object.entries(MAPPING_RESOURCES)
    .filter(([, resource]) => !plan.has(resource))
    .map(([field]) => field);

/** The answer with each mapping field it carries emptied when the plan excludes that field's resource. */
export function mappingsWithinPlan<T extends object>(answer: T, plan: ReadonlySet<string>): T {
  const out = answer as Record<string, unknown>;
  for (const field of hiddenMappings(plan)) if (Array.isArray(out[field])) out[field] = [];
  return answer;
}

/**
 * An artifact read (one record or a list) cached and bounded by the caller's plan: the answer
 * depends on the plan (mappingsWithinPlan), so the plan is part of the cache key.
 */
export function cachedWithinPlan<T extends object>(ctx: Context, verb: CachedVerb, input: object, compute: () => Promise<T>): Promise<T> {
  const plan = ctx.actor.plan;
  return cachedResult(ctx, verb, { ...input, plan: [...plan] }, async () => {
    const answer = await compute();
    return (Array.isArray(answer) ? answer.map((e: object) => mappingsWithinPlan(e, plan)) : mappingsWithinPlan(answer, plan)) as T;
  });
}
