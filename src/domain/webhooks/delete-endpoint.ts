// Deleting a webhook endpoint and its secrets. Its pending deliveries become failed in the same
// transaction, so no worker sends them; its delivery history stays for the record.
import type { AdminContext } from '../context.ts';
import { notFound } from '../../shared/errors.ts';
import { recordAudit } from '../console/audit.ts';
import * as endpoints from '../../storage/db/repositories/events/webhook-endpoints.ts';
import { endpointLabel } from './endpoint-view.ts';

export async function deleteEndpoint({ ctx, input }: { ctx: AdminContext; input: { endpointId: string } }): Promise<void> {
  const organizationId = ctx.actor.organizationId;
  const existing = await endpoints.findEndpoint(ctx.db.kysely, organizationId, input.endpointId);
  if (!existing) throw notFound('Webhook endpoint');
  const now = ctx.now();
  await ctx.db.kysely.transaction().execute(async (tx) => {
    // Deleted meanwhile by someone else: that deletion was audited, this one did nothing.
    if (!(await endpoints.deleteEndpoint(tx, organizationId, existing.id))) throw notFound('Webhook endpoint');
    await endpoints.failPendingDeliveries(tx, organizationId, existing.id, 'The endpoint was deleted.');
    const target = { type: 'webhook_endpoint' as const, id: existing.id, label: endpointLabel(existing) };
    await recordAudit(tx, { organizationId, actor: ctx.actor, action: 'webhook_endpoint.delete', target, at: now });
  });
}
