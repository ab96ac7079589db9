// The OpenAPI 3.1 `webhooks` of the document: one entry per change event type, plus the console's
// test event, each with the request a receiver gets (issue 15). The bodies are the very schemas the
// events feed serves (src/domain/events/schema.ts), so the API reference, the SDK's WebhookPayload
// type (packages/sdk/scripts/openapi-to-ts.ts) and the server cannot disagree.
import type { TSchema } from 'typebox';
import { Event } from '../../domain/events/schema.ts';
import { TEST_EVENT_TYPE, WebhookTestEvent } from '../../domain/webhooks/test-event.ts';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is untyped JSON here
type Json = any;

const DELIVERY =
  'Sent as `POST` to every enabled endpoint subscribed to the type, at least once: deduplicate on `webhook-id`. ' +
  'Signed per the Standard Webhooks specification: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<raw body>` ' +
  'with the endpoint’s `whsec_` secret (the SDK’s `webhooks.verify`, or any Standard Webhooks or Svix library), and refuse ' +
  'timestamps more than 5 minutes away. Any 2xx within 10 s (WEBHOOK_TIMEOUT_MS) acknowledges it; anything else, a redirect ' +
  'or no answer is retried after about 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, then every 6 h (each ±20 %), until the ' +
  'endpoint has failed for 3 days (WEBHOOK_GIVE_UP_SEC): then it is disabled.';

const HEADERS: Json[] = [
  {
    in: 'header',
    name: 'webhook-id',
    required: true,
    description: 'The event’s `eventId`: the same on every attempt and redelivery.',
    schema: { type: 'string', maxLength: 64 },
  },
  {
    in: 'header',
    name: 'webhook-timestamp',
    required: true,
    description: 'When this attempt was signed: Unix epoch seconds.',
    schema: { type: 'string', maxLength: 20 },
  },
  {
    in: 'header',
    name: 'webhook-signature',
    required: true,
    description: '`v1,<base64 HMAC-SHA256>`; during a secret rotation’s overlap one signature per live secret, separated by spaces.',
    schema: { type: 'string', maxLength: 1024 },
  },
];

const operationName = (type: string) => `${type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase())}Webhook`;

function webhook(type: string, schema: TSchema): Json {
  const summary: string = (schema as Json).description ?? type;
  return {
    post: {
      operationId: operationName(type),
      tags: ['events'],
      summary,
      description: `${summary} ${DELIVERY}`,
      'x-extension': true,
      // the receiver authenticates the request by its signature, not by an API credential
      security: [],
      parameters: HEADERS,
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: {
        '200': {
          description: 'Acknowledged: any 2xx answer within the time-out; its body is ignored (the first 1 KB is kept for the console).',
        },
      },
    },
  };
}

/** The document's `webhooks`: every event type, in catalog order, then `webhook.test`. */
export function webhookItems(): Json {
  const items: Json = {};
  // Event's members are in catalog order (src/domain/events/schema.ts)
  for (const schema of Event.anyOf) items[schema.properties.type.const] = webhook(schema.properties.type.const, schema);
  items[TEST_EVENT_TYPE] = webhook(TEST_EVENT_TYPE, WebhookTestEvent);
  return items;
}
