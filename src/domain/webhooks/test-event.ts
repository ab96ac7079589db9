// The `webhook.test` event an administrator sends to one endpoint (send-test.ts): the same envelope
// as a change event, about the endpoint itself. It is never stored in `events` nor in the feed.
import { Type, type Static } from 'typebox';
import { EventId } from '../events/schema.ts';
import { EpochMs } from '../../shared/sub-objects.ts';

export const TEST_EVENT_TYPE = 'webhook.test';

export const WebhookTestEvent = Type.Object(
  {
    eventId: EventId,
    type: Type.Literal(TEST_EVENT_TYPE),
    occurredAt: { ...EpochMs, description: 'When the test was asked for: Unix epoch milliseconds.' } as typeof EpochMs,
    resourceType: Type.Literal('webhook_endpoint'),
    resourceId: Type.String({ description: 'The endpoint the test was sent to.' }),
    data: Type.Object({ endpointId: Type.String({ description: 'The endpoint the test was sent to.' }) }),
  },
  { description: 'A test event, sent from the console ("Send test event") to one endpoint whatever its event types.' },
);
export type WebhookTestEvent = Static<typeof WebhookTestEvent>;
