// A `webhook.test` event sent to one endpoint (issue 15's contract): delivered, signed and retried
// like any other, but never stored in `events` and never in the feed. Its resource is the endpoint.
// Manual sends are limited per organization (manual-sends.ts).
import type { AdminContext } from '../context.ts';
import { notFound, validationFailed } from '../../shared/errors.ts';
import { findEndpoint } from '../../storage/db/repositories/events/webhook-endpoints.ts';
import { newEventId } from '../events/event-id.ts';
import type { WebhookDelivery } from './delivery-schema.ts';
import { addDelivery } from './add-delivery.ts';
import { countManualSend } from './manual-sends.ts';
import { TEST_EVENT_TYPE, type WebhookTestEvent } from './test-event.ts';

export async function sendTestEvent({ ctx, input }: { ctx: AdminContext; input: { endpointId: string } }): Promise<WebhookDelivery> {
  const organizationId = ctx.actor.organizationId;
  const endpoint = await findEndpoint(ctx.db.kysely, organizationId, input.endpointId);
  if (!endpoint) throw notFound('Webhook endpoint');
  if (endpoint.status !== 'enabled') {
    throw validationFailed([{ field: 'endpointId', message: 'the endpoint is disabled; enable it, then send a test event' }]);
  }
  await countManualSend(ctx);
  const now = ctx.now();
  const eventId = newEventId(now);
  const event: WebhookTestEvent = {
    eventId,
    type: TEST_EVENT_TYPE,
    occurredAt: now,
    resourceType: 'webhook_endpoint',
    resourceId: endpoint.id,
    data: { endpointId: endpoint.id },
  };
  const payload = JSON.stringify(event);
  return await addDelivery(ctx.db, { organizationId, endpointId: endpoint.id, eventId, eventType: TEST_EVENT_TYPE, payload, now });
}
