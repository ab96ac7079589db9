// One new pending delivery of an event to an endpoint, outside a write (a redelivery, a test
// event), due at once and announced to this node's worker.
import type { Db } from '../../storage/db/connect.ts';
import { announceDeliveries, insertDeliveries } from '../../storage/db/repositories/events/webhook-deliveries.ts';
import { deliveryView, type WebhookDelivery } from './delivery-schema.ts';
import { newDeliveryId } from './delivery-id.ts';
import { nudgeDeliveryWorkers } from './nudge.ts';

export async function addDelivery(
  db: Db,
  d: { organizationId: string; endpointId: string; eventId: string; eventType: string; payload: string | null; now: number },
): Promise<WebhookDelivery> {
  const row = {
    id: newDeliveryId(d.now),
    organization_id: d.organizationId,
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    payload: d.payload,
    status: 'pending' as const,
    next_attempt_at: d.now,
    created_at: d.now,
  };
  await insertDeliveries(db.kysely, [row]);
  await announceDeliveries(db.kysely);
  nudgeDeliveryWorkers();
  const blank = {
    lease_owner: null,
    lease_until: null,
    last_attempt_at: null,
    last_status_code: null,
    last_latency_ms: null,
    last_error: null,
  };
  return deliveryView({ ...row, ...blank, attempts: 0 });
}
