import { deliveryStatusLabel, endpointStatusLabel } from '../format.ts';
import type { WebhookDelivery, WebhookEndpoint } from '../types.ts';

export function EndpointStatusBadge({ status }: { status: WebhookEndpoint['status'] }) {
  return <span class={`badge badge-${status === 'enabled' ? 'active' : 'revoked'}`}>{endpointStatusLabel(status)}</span>;
}

export function DeliveryStatusBadge({ status }: { status: WebhookDelivery['status'] }) {
  const look = status === 'succeeded' ? 'active' : status === 'failed' ? 'failed' : 'pending';
  return <span class={`badge badge-${look}`}>{deliveryStatusLabel(status)}</span>;
}
