// The Standard Webhooks headers of one attempt (https://www.standardwebhooks.com), computed with
// the `standardwebhooks` package so that any Standard Webhooks or Svix library verifies them: one
// `v1,` signature per live secret (two during a rotation's overlap), space-separated.
import fs from 'node:fs';
import { Webhook } from 'standardwebhooks';

const VERSION = (JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
export const USER_AGENT = `compliance-data-service-webhooks/${VERSION}`;

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
