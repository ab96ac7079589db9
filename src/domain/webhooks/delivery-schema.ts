// The shapes of the console's delivery answers (issue 15's contract): an endpoint's deliveries and
// each delivery's attempts. The console's types are generated from these (npm run generate).
import { Type, type Static } from 'typebox';
import type { AttemptRow, DeliveryRow } from '../../storage/db/repositories/events/webhook-deliveries.ts';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const WebhookDelivery = Type.Object({
  deliveryId: Type.String(),
  endpointId: Type.String(),
  eventId: Type.String({ description: 'The webhook-id header: the same on every attempt and redelivery of the event.' }),
  eventType: Type.String(),
  status: Type.Enum(['pending', 'succeeded', 'failed'], {
    description:
      'pending: to be attempted (again) at nextAttemptAt; succeeded: a 2xx arrived in time; failed: given up (the endpoint was disabled or deleted).',
  }),
  attempts: Type.Integer({ description: 'Attempts made so far' }),
  nextAttemptAt: nullable(Type.Integer({ description: 'Epoch ms of the next attempt, while pending' })),
  lastAttemptAt: nullable(Type.Integer({ description: 'Epoch ms' })),
  lastStatusCode: nullable(Type.Integer({ description: "The receiver's HTTP status at the last attempt, when it answered" })),
  lastLatencyMs: nullable(Type.Integer({ description: 'How long the last attempt took, when a request was sent' })),
  lastError: nullable(Type.String({ description: 'Why the last attempt failed, or why the delivery was given up' })),
  createdAt: Type.Integer({ description: 'Epoch ms' }),
});

export const WebhookDeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt' }),
  at: Type.Integer({ description: 'Epoch ms at which the attempt began' }),
  statusCode: nullable(Type.Integer()),
  latencyMs: nullable(Type.Integer({ description: 'Absent when nothing was sent (the address was refused)' })),
  error: nullable(Type.String()),
  responseBody: nullable(Type.String({ description: "The first 1 KB of the receiver's answer" })),
});

export type WebhookDelivery = Static<typeof WebhookDelivery>;
export type WebhookDeliveryAttempt = Static<typeof WebhookDeliveryAttempt>;

export const deliveryView = (r: DeliveryRow): WebhookDelivery => ({
  deliveryId: r.id,
  endpointId: r.endpoint_id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
  lastAttemptAt: r.last_attempt_at,
  lastStatusCode: r.last_status_code,
  lastLatencyMs: r.last_latency_ms,
  lastError: r.last_error,
  createdAt: r.created_at,
});

export const attemptView = (r: AttemptRow): WebhookDeliveryAttempt => ({
  attempt: r.attempt,
  at: r.at,
  statusCode: r.status_code,
  latencyMs: r.latency_ms,
  error: r.error,
  responseBody: r.response_body,
});
