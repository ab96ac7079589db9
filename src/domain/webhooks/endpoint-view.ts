// What the endpoint verbs return: a stored endpoint without its organization and failure bookkeeping.
import type { WebhookEndpointRecord } from '../../storage/db/repositories/events/webhook-endpoints.ts';
import type { WebhookEndpoint } from './schema.ts';

export const endpointView = (e: WebhookEndpointRecord): WebhookEndpoint => ({
  endpointId: e.id,
  url: e.url,
  description: e.description,
  eventTypes: e.eventTypes,
  status: e.status,
  disabledReason: e.disabledReason,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

/** How the audit log names an endpoint: its URL, cut to a readable length. */
export const endpointLabel = (e: { url: string }): string => (e.url.length > 200 ? `${e.url.slice(0, 199)}…` : e.url);
