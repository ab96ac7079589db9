// `webhooks`: what a receiver of the service's webhooks needs, usable without a client (a receiver
// holds a signing secret, not API credentials) and also as `client.webhooks`.
import { verifyWebhook } from './verify.ts';

export const webhooks = {
  /**
   * `await webhooks.verify(rawBody, req.headers, 'whsec_…')`: the event, once its Standard Webhooks
   * signature and timestamp check out; WebhookVerificationError otherwise. Pass the body exactly
   * as received (string or bytes) and, during a secret rotation, both secrets as an array.
   */
  verify: verifyWebhook,
} as const;

export type Webhooks = typeof webhooks;
