// Sends a delivery's event to its endpoint again: a new delivery (its own attempts and status)
// with the same event ID, so a receiver that already processed it recognizes the webhook-id and
// ignores it. The endpoint must be enabled: a disabled one would fail it at once. The event must
// still be kept and within the organization's plan (delivery-body.ts): a redelivery never sends
// what the feed no longer shows. Manual sends are limited per organization (manual-sends.ts).
import type { AdminContext } from '../context.ts';
import { notFound, ServiceError, validationFailed } from '../../shared/errors.ts';
import { getDelivery } from '../../storage/db/repositories/events/webhook-deliveries.ts';
import { findEndpoint } from '../../storage/db/repositories/events/webhook-endpoints.ts';
import type { WebhookDelivery } from './delivery-schema.ts';
import { addDelivery } from './add-delivery.ts';
import { deliveryBody, EVENT_GONE } from './delivery-body.ts';
import { countManualSend } from './manual-sends.ts';

export async function redeliver({ ctx, input }: { ctx: AdminContext; input: { deliveryId: string } }): Promise<WebhookDelivery> {
  const organizationId = ctx.actor.organizationId;
  const original = await getDelivery(ctx.db.kysely, organizationId, input.deliveryId);
  if (!original) throw notFound('Webhook delivery');
  const endpoint = await findEndpoint(ctx.db.kysely, organizationId, original.endpoint_id);
  if (!endpoint) throw notFound('Webhook delivery');
  if (endpoint.status !== 'enabled') {
    throw validationFailed([{ field: 'deliveryId', message: 'its endpoint is disabled; enable the endpoint, then redeliver' }]);
  }
  const body = await deliveryBody(ctx.db.kysely, original);
  if ('refused' in body) {
    if (body.refused === EVENT_GONE) throw validationFailed([{ field: 'deliveryId', message: `${EVENT_GONE}` }]);
    throw new ServiceError('plan_restricted', `Not redelivered: ${body.refused}.`);
  }
  await countManualSend(ctx);
  const now = ctx.now();
  return await addDelivery(ctx.db, {
    organizationId,
    endpointId: original.endpoint_id,
    eventId: original.event_id,
    eventType: original.event_type,
    payload: original.payload,
    now,
  });
}
