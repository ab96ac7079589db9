// Rotating an endpoint's signing secret. The new secret signs from now on; the previous one keeps
// signing beside it (one webhook-signature entry each) until now + WEBHOOK_SECRET_OVERLAP_SEC, so
// a receiver can switch to the new secret at its own pace without rejecting a delivery. Only the
// previous one: a second rotation inside the overlap ends the first one's overlap, so a delivery
// never carries more than MAX_SIGNING_SECRETS signatures. The new secret is returned once, here.
import { randomUUID } from 'node:crypto';
import type { AdminContext } from '../context.ts';
import { notFound } from '../../shared/errors.ts';
import { recordAudit } from '../console/audit.ts';
import * as endpoints from '../../storage/db/repositories/events/webhook-endpoints.ts';
import { endpointLabel } from './endpoint-view.ts';
import type { RotatedSecret } from './schema.ts';
import { contextSecretsKey, encryptSigningSecret, generateSigningSecret } from './signing-secrets.ts';

/** The overlap when the context carries no settings (config.ts's default). */
const DEFAULT_OVERLAP_SEC = 24 * 3600;

export async function rotateSecret({ ctx, input }: { ctx: AdminContext; input: { endpointId: string } }): Promise<RotatedSecret> {
  const organizationId = ctx.actor.organizationId;
  const existing = await endpoints.findEndpoint(ctx.db.kysely, organizationId, input.endpointId);
  if (!existing) throw notFound('Webhook endpoint');
  const key = await contextSecretsKey(ctx);
  const secret = generateSigningSecret();
  const now = ctx.now();
  const previousSecretExpiresAt = now + (ctx.webhooks?.secretOverlapSec ?? DEFAULT_OVERLAP_SEC) * 1000;
  await ctx.db.kysely.transaction().execute(async (tx) => {
    // at most two secrets sign together: a rotation inside the previous one's overlap ends that
    // overlap (without a cap, each rotation of a day added a signature to every delivery's header)
    await endpoints.deletePreviousSecrets(tx, organizationId, existing.id);
    await endpoints.expireSecrets(tx, organizationId, existing.id, previousSecretExpiresAt);
    await endpoints.insertSecret(tx, {
      id: randomUUID(),
      endpointId: existing.id,
      organizationId,
      secretCiphertext: encryptSigningSecret(key, existing.id, secret),
      createdAt: now,
      expiresAt: null,
    });
    const target = { type: 'webhook_endpoint' as const, id: existing.id, label: endpointLabel(existing) };
    await recordAudit(tx, { organizationId, actor: ctx.actor, action: 'webhook_endpoint.rotate_secret', target, at: now });
  });
  return { secret, previousSecretExpiresAt };
}
