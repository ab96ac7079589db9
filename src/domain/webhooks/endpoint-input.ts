// The checks shared by registering and changing an endpoint, so both refuse the same input with the
// same words. The HTTP schemas bound sizes first; these are the rules (and what the CLI or a test
// calling the verbs directly relies on).
import type { BaseContext } from '../context.ts';
import { ServiceError, type FieldIssue } from '../../shared/errors.ts';
import { excludedResources } from '../events/plan-bounds.ts';
import { invisibleIssue, typedName } from '../text.ts';
import { checkEndpointUrl } from './address-policy.ts';
import { ALL_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from './event-types.ts';
import { ENDPOINT_DESCRIPTION_MAX_LENGTH } from './schema.ts';

export interface EndpointFields {
  url?: string;
  description?: string;
  eventTypes?: string[];
}

/** The fields normalized, and every issue found (all fields are checked, not only the first wrong one). */
export async function checkEndpointFields(
  ctx: BaseContext,
  input: EndpointFields,
): Promise<{ fields: EndpointFields; issues: FieldIssue[] }> {
  const issues: FieldIssue[] = [];
  const fields: EndpointFields = {};
  if (input.url !== undefined) {
    const url = input.url.trim();
    const urlIssues = await checkEndpointUrl(url, ctx.webhooks?.allowPrivateAddresses ?? false, ctx.lookupHost);
    issues.push(...urlIssues);
    fields.url = url;
  }
  if (input.description !== undefined) {
    const description = typedName(input.description);
    if (description === undefined) issues.push(invisibleIssue('description'));
    else if (description.length > ENDPOINT_DESCRIPTION_MAX_LENGTH) {
      issues.push({ field: 'description', message: `must be at most ${ENDPOINT_DESCRIPTION_MAX_LENGTH} characters` });
    } else fields.description = description;
  }
  if (input.eventTypes !== undefined) {
    const known = new Set<string>([ALL_EVENT_TYPES, ...SUBSCRIBABLE_EVENT_TYPES]);
    const unknown = input.eventTypes.filter((t) => !known.has(t));
    if (input.eventTypes.length === 0) {
      issues.push({ field: 'eventTypes', message: 'must name at least one event type, or "*" for every type' });
    } else if (unknown.length > 0) {
      issues.push({
        field: 'eventTypes',
        message: `unknown event type ${unknown.map((t) => JSON.stringify(t.slice(0, 100))).join(', ')}; use "*" or some of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`,
      });
    } else {
      // "*" already covers every type: stored alone, so a reader never has to reconcile both
      const unique = [...new Set(input.eventTypes)];
      fields.eventTypes = unique.includes(ALL_EVENT_TYPES) ? [ALL_EVENT_TYPES] : SUBSCRIBABLE_EVENT_TYPES.filter((t) => unique.includes(t));
    }
  }
  return { fields, issues };
}

/**
 * Refuses event types the organization's plan excludes (events/plan-bounds.ts), as the feed does
 * for a type it names: a plan that excludes a resource excludes its events everywhere. "*" stays
 * allowed and means every type the plan includes.
 */
export function checkTypesWithinPlan(plan: readonly string[], eventTypes: readonly string[] | undefined): void {
  if (eventTypes === undefined) return;
  const excluded = excludedResources(new Set(plan), eventTypes);
  if (excluded.length === 0) return;
  throw new ServiceError(
    'plan_restricted',
    `The organization's plan does not include ${excluded.join(', ')} data, so an endpoint cannot subscribe to ${eventTypes
      .filter((t) => excluded.some((r) => t.startsWith(`${r}.`)))
      .join(', ')}.`,
  );
}
