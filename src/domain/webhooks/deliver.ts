// One attempt of one leased delivery: sign, send, and record what happened (the attempt row, the
// delivery's last_* columns and its next attempt, the endpoint's failing run) in one transaction
// that holds only while the worker still owns the lease. An endpoint failing for
// WEBHOOK_GIVE_UP_SEC is disabled there, its pending deliveries failed, and an audit entry
// written with the service as the actor.
import type { Config } from '../../config.ts';
import type { Db } from '../../storage/db/connect.ts';
import {
  clearFailing,
  disableEndpoint,
  failDelivery,
  finishAttempt,
  insertAttempt,
  markFailing,
  type DeliveryRow,
} from '../../storage/db/repositories/events/webhook-deliveries.ts';
import { failPendingDeliveries, findEndpoint, type WebhookEndpointRecord } from '../../storage/db/repositories/events/webhook-endpoints.ts';
import { asDependencyError } from '../../storage/db/errors.ts';
import { recordAudit, type AuditActor } from '../console/audit.ts';
import { afterFailure } from './retry-schedule.ts';
import { deliveryBody } from './delivery-body.ts';
import type { SendInput, SendResult, WebhookSender } from '../../storage/webhook-http/sender.ts';
import { webhookHeaders } from './sign.ts';

/** What delivering needs: the database, the clock, the settings, and the endpoint's secrets. */
export interface DeliveryContext {
  db: Db;
  now: () => number;
  webhooks: Config['webhooks'];
  /** the secrets that sign a delivery to this endpoint now (signing-secrets.ts), newest first */
  signingSecrets: (endpointId: string, now: number) => Promise<string[]>;
  /** why an address may not receive webhooks (address-policy.ts), unless the settings allow every address */
  refuseAddress: (ip: string) => string | undefined;
  /** resolves a host name to its addresses (tests point a name at loopback); default: the system resolver */
  lookupHost?: SendInput['lookupHost'];
  /** makes the HTTP request (src/storage/webhook-http/node-http.ts) */
  send: WebhookSender;
}

export const SYSTEM_ACTOR: AuditActor = { type: 'system', id: null, label: 'Webhook delivery', ip: null, userAgent: null };

export type AttemptResult = 'succeeded' | 'retrying' | 'failed' | 'lease_lost';

export async function attemptDelivery(ctx: DeliveryContext, delivery: DeliveryRow, owner: string): Promise<AttemptResult> {
  const endpoint = await findEndpoint(ctx.db.kysely, delivery.organization_id, delivery.endpoint_id);
  if (endpoint?.status !== 'enabled') {
    await failDelivery(ctx.db.kysely, delivery.id, owner, endpoint ? 'the endpoint is disabled' : 'the endpoint was deleted');
    return 'failed';
  }
  const body = await deliveryBody(ctx.db.kysely, delivery);
  if ('refused' in body) {
    await failDelivery(ctx.db.kysely, delivery.id, owner, body.refused);
    return 'failed';
  }
  const at = ctx.now();
  const result = await send(ctx, delivery, body.payload, endpoint.url, endpoint.id, at);
  try {
    return await recordOutcome(ctx, delivery, owner, endpoint, at, result);
  } catch (err) {
    if (err instanceof LeaseLost) return 'lease_lost';
    throw err;
  }
}

/** Signs and sends one attempt; a secret that cannot be read is the attempt's failure, not a crash of the worker. */
async function send(
  ctx: DeliveryContext,
  delivery: DeliveryRow,
  payload: string,
  url: string,
  endpointId: string,
  at: number,
): Promise<SendResult> {
  const notSent = (error: string): SendResult => ({ statusCode: null, latencyMs: 0, error, responseBody: null, sent: false });
  let secrets: string[];
  try {
    secrets = await ctx.signingSecrets(endpointId, at);
  } catch (err) {
    // a ciphertext that no longer decrypts (WEBHOOK_SECRETS_KEY changed): retried, and in the end
    // given up like any failure, rather than holding the delivery forever
    if (asDependencyError(err)) throw err; // the database is down: the lease brings it back later

    return notSent(`the signing secret could not be read (${(err as Error).message.slice(0, 200)}); rotate the endpoint's secret`);
  }
  if (secrets.length === 0) return notSent('the endpoint has no live signing secret');
  return await ctx.send({
    url,
    body: payload,
    headers: webhookHeaders({ eventId: delivery.event_id, payload, secrets, at }),
    timeoutMs: ctx.webhooks.timeoutMs,
    refuseAddress: ctx.refuseAddress,
    lookupHost: ctx.lookupHost,
  });
}

/** Rolls back what the outcome's transaction wrote once it finds the lease gone. */
class LeaseLost extends Error {}

async function recordOutcome(
  ctx: DeliveryContext,
  delivery: DeliveryRow,
  owner: string,
  endpoint: WebhookEndpointRecord,
  at: number,
  result: SendResult,
): Promise<AttemptResult> {
  const succeeded = result.error === null;
  const attempt = delivery.attempts + 1;
  return await ctx.db.kysely.transaction().execute(async (trx) => {
    const decidedAt = ctx.now();
    let status: 'pending' | 'succeeded' | 'failed' = 'succeeded';
    let nextAttemptAt = delivery.next_attempt_at;
    let giveUp = false;
    if (!succeeded) {
      const failingSince = (await markFailing(trx, endpoint.id, at)) ?? at;
      const next = afterFailure(attempt, decidedAt, failingSince, ctx.webhooks.giveUpSec * 1000);
      if (next === 'give_up') {
        status = 'failed';
        giveUp = true;
      } else {
        status = 'pending';
        nextAttemptAt = next.retryAt;
      }
    }
    const recorded = await finishAttempt(trx, {
      id: delivery.id,
      owner,
      at,
      status,
      nextAttemptAt,
      statusCode: result.statusCode,
      latencyMs: result.sent ? result.latencyMs : null,
      error: result.error,
    });
    // Another worker took the row over (this one was too slow, or taken for dead): it records its
    // own attempt; this one's outcome is dropped and the receiver deduplicates by webhook-id.
    if (recorded === undefined) throw new LeaseLost();
    await insertAttempt(trx, {
      delivery_id: delivery.id,
      attempt: recorded,
      organization_id: delivery.organization_id,
      at,
      status_code: result.statusCode,
      latency_ms: result.sent ? result.latencyMs : null,
      error: result.error,
      response_body: result.responseBody,
    });
    if (succeeded) {
      await clearFailing(trx, endpoint.id);
      return 'succeeded';
    }
    if (!giveUp) return 'retrying';
    const reason = `Deliveries failed for ${duration(ctx.webhooks.giveUpSec)} (last error: ${result.error})`.slice(0, 500);
    if (await disableEndpoint(trx, endpoint.id, reason, decidedAt)) {
      await failPendingDeliveries(trx, endpoint.organizationId, endpoint.id, 'the endpoint was disabled after failing too long');
      await recordAudit(trx, {
        organizationId: endpoint.organizationId,
        actor: SYSTEM_ACTOR,
        action: 'webhook_endpoint.disable',
        target: { type: 'webhook_endpoint', id: endpoint.id, label: endpoint.url.slice(0, 200) },
        at: decidedAt,
      });
    }
    return 'failed';
  });
}

/** "3 days", "1 hour", "90 minutes": the give-up limit as the disabled reason says it. */
function duration(sec: number): string {
  const [value, unit] = sec >= 86_400 ? [sec / 86_400, 'day'] : sec >= 3600 ? [sec / 3600, 'hour'] : [Math.max(1, sec / 60), 'minute'];
  const rounded = Math.round(value * 10) / 10;
  return `${rounded} ${unit}${rounded === 1 ? '' : 's'}`;
}
