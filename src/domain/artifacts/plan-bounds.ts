// Plans bound every answer (PRODUCT.md): an artifact's mappings to records of a resource the
// organization's plan excludes are shown empty, as a control's mappedArtifacts leaves out the
// artifact kinds the plan excludes. The links stay stored; a plan that includes the resource again
// shows them at once (the cached answer is keyed by the plan).

/** The mapping fields of an artifact's answer and the plan resource of the records they name. */
const MAPPING_RESOURCES = {
  mappedControls: 'control',
  mappedControlIds: 'control',
  mappedFrameworks: 'framework',
  mappedFrameworkIds: 'framework',
  mappedRequirements: 'framework',
  mappedTests: 'test',
} as const;

/** The answer with each mapping field it carries emptied when the plan excludes that field's resource. */
export function mappingsWithinPlan<T extends object>(answer: T, plan: ReadonlySet<string>): T {
  const out = answer as Record<string, unknown>;
  for (const [field, resource] of Object.entries(MAPPING_RESOURCES)) if (Array.isArray(out[field]) && !plan.has(resource)) out[field] = [];
  return answer;
}
