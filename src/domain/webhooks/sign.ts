// The Standard Webhooks headers of one attempt (https://www.standardwebhooks.com), computed with
// the `standardwebhooks` package so that any Standard Webhooks or Svix library verifies them: one
// `v1,` signature per live secret (two during a rotation's overlap), space-separated.
import { Webhook } from 'standardwebhooks';
import { SERVICE_NAME, SERVICE_VERSION } from '../../shared/version.ts';

export const USER_AGENT = `${SERVICE_NAME}-webhooks/${SERVICE_VERSION}`;

export function webhookHeaders(input: {
  eventId: string;
  payload: string;
  secrets: readonly string[];
  at: number;
}): Record<string, string> {
  const timestamp = new Date(Math.floor(input.at / 1000) * 1000);
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': input.eventId,
    'webhook-timestamp': String(Math.floor(input.at / 1000)),
    'webhook-signature': input.secrets.map((secret) => new Webhook(secret).sign(input.eventId, timestamp, input.payload)).join(' '),
  };
}
