// Changing a webhook endpoint: its URL (checked again by the address policy), description, event
// types or status. Disabling stops its pending deliveries (they become failed, so no worker sends
// them); re-enabling clears the reason and the run of failures that may have disabled it, so the
// service gives the endpoint a fresh start. Each change and its audit entries commit together.
import type { AdminContext } from '../context.ts';
import { notFound, validationFailed } from '../../shared/errors.ts';
import { recordAudit, type AuditAction } from '../console/audit.ts';
import * as endpoints from '../../storage/db/repositories/events/webhook-endpoints.ts';
import { checkEndpointFields, checkTypesWithinPlan } from './endpoint-input.ts';
import { findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import { endpointLabel, endpointView } from './endpoint-view.ts';
import { ENDPOINT_STATUSES, type EndpointStatus, type WebhookEndpoint } from './schema.ts';

export const DISABLED_BY_ADMIN = 'Disabled by an administrator.';

export async function updateEndpoint({
  ctx,
  input,
}: {
  ctx: AdminContext;
  input: { endpointId: string; url?: string; description?: string; eventTypes?: string[]; status?: string };
}): Promise<WebhookEndpoint> {
  const organizationId = ctx.actor.organizationId;
  const existing = await endpoints.findEndpoint(ctx.db.kysely, organizationId, input.endpointId);
  if (!existing) throw notFound('Webhook endpoint');
  const { fields, issues } = await checkEndpointFields(ctx, input);
  if (input.status !== undefined && !(ENDPOINT_STATUSES as readonly string[]).includes(input.status)) {
    issues.push({ field: 'status', message: `must be one of ${ENDPOINT_STATUSES.join(', ')}` });
  }
  if (input.url === undefined && input.description === undefined && input.eventTypes === undefined && input.status === undefined) {
    issues.push({ field: 'body', message: 'must change at least one of url, description, eventTypes, status' });
  }
  if (issues.length > 0) throw validationFailed(issues);
  if (fields.eventTypes !== undefined) {
    checkTypesWithinPlan((await findOrganization(ctx.db.kysely, organizationId))?.plan ?? [], fields.eventTypes);
  }

  const status = input.status as EndpointStatus | undefined;
  const changes: endpoints.EndpointChanges = { ...fields };
  const actions: AuditAction[] = [];
  const edited =
    (fields.url !== undefined && fields.url !== existing.url) ||
    (fields.description !== undefined && fields.description !== existing.description) ||
    (fields.eventTypes !== undefined && JSON.stringify(fields.eventTypes) !== JSON.stringify(existing.eventTypes));
  if (edited) actions.push('webhook_endpoint.update');
  if (status === 'enabled' && existing.status !== 'enabled') {
    Object.assign(changes, { status, disabledReason: null, failingSince: null });
    actions.push('webhook_endpoint.enable');
  } else if (status === 'disabled' && existing.status !== 'disabled') {
    Object.assign(changes, { status, disabledReason: DISABLED_BY_ADMIN });
    actions.push('webhook_endpoint.disable');
  }
  // Nothing differs: nothing is written or audited, and the endpoint is answered as it is.
  if (actions.length === 0) return endpointView(existing);

  const now = ctx.now();
  await ctx.db.kysely.transaction().execute(async (tx) => {
    if (!(await endpoints.updateEndpoint(tx, organizationId, existing.id, changes, now))) throw notFound('Webhook endpoint');
    if (changes.status === 'disabled') await endpoints.failPendingDeliveries(tx, organizationId, existing.id, 'The endpoint was disabled.');
    const target = { type: 'webhook_endpoint' as const, id: existing.id, label: endpointLabel({ url: fields.url ?? existing.url }) };
    for (const action of actions) await recordAudit(tx, { organizationId, actor: ctx.actor, action, target, at: now });
  });
  const updated = await endpoints.findEndpoint(ctx.db.kysely, organizationId, existing.id);
  if (!updated) throw notFound('Webhook endpoint');
  return endpointView(updated);
}
