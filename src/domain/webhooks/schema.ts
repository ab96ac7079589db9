// The shapes of the webhook admin API (issue 15): an endpoint as the console and the admin API show
// it, the endpoint just created (with its secret, shown once), a rotation's answer, and one
// delivery of an event to an endpoint. The console's types (src/console/web/types.ts) are generated
// from these: npm run generate.
import { Type, type Static } from 'typebox';
import { ALL_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from './event-types.ts';
import { ENDPOINT_URL_MAX_LENGTH } from './address-policy.ts';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/** Longest description accepted. */
export const ENDPOINT_DESCRIPTION_MAX_LENGTH = 500;
/** Endpoints an organization may register: enough for every integration, bounded so fan-out per event stays small. */
export const MAX_ENDPOINTS_PER_ORG = 20;

export const EndpointEventType = Type.Enum([ALL_EVENT_TYPES, ...SUBSCRIBABLE_EVENT_TYPES], {
  description: 'An event type, or "*" for every type (also those added later).',
});

export const EndpointUrl = Type.String({
  minLength: 1,
  maxLength: ENDPOINT_URL_MAX_LENGTH,
  description:
    'Where events are POSTed: http:// or https://, no user name or password, no fragment. Loopback, private, link-local and metadata addresses (also through DNS) are refused unless WEBHOOKS_ALLOW_PRIVATE_ADDRESSES is on.',
});

export const EndpointDescription = Type.String({
  maxLength: ENDPOINT_DESCRIPTION_MAX_LENGTH,
  description: 'A label for people, e.g. the system receiving the events.',
});

export const EndpointEventTypes = Type.Array(EndpointEventType, {
  minItems: 1,
  maxItems: SUBSCRIBABLE_EVENT_TYPES.length + 1,
  uniqueItems: true,
  description: 'The event types sent to the endpoint; ["*"] sends every type.',
});

export const WebhookEndpoint = Type.Object({
  endpointId: Type.String(),
  url: Type.String(),
  description: Type.String(),
  eventTypes: Type.Array(Type.String(), { description: 'The event types sent to the endpoint; ["*"] is every type.' }),
  status: Type.Enum([...ENDPOINT_STATUSES], {
    description: 'disabled: nothing is sent (by an administrator, or by the service after deliveries failed for too long).',
  }),
  disabledReason: Type.Union([Type.String(), Type.Null()], { description: 'Why the endpoint is disabled; null while enabled.' }),
  createdAt: Type.Integer({ description: 'Epoch ms' }),
  updatedAt: Type.Integer({ description: 'Epoch ms' }),
});

/** An endpoint just registered: the only time its signing secret is shown. */
export const NewWebhookEndpoint = Type.Intersect([
  WebhookEndpoint,
  Type.Object({
    secret: Type.String({
      description: 'The signing secret (Standard Webhooks, whsec_…): shown in this response only; it cannot be retrieved again.',
    }),
  }),
]);

export const RotatedSecret = Type.Object({
  secret: Type.String({ description: 'The new signing secret: shown in this response only.' }),
  previousSecretExpiresAt: Type.Integer({
    description: 'Epoch ms until which the previous secret also signs (WEBHOOK_SECRET_OVERLAP_SEC after the rotation).',
  }),
});

export type WebhookEndpoint = Static<typeof WebhookEndpoint>;
export type NewWebhookEndpoint = Static<typeof NewWebhookEndpoint>;
export type RotatedSecret = Static<typeof RotatedSecret>;
