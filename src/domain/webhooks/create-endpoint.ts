// Registering a webhook endpoint for the actor's organization, in the console or the admin API.
// The URL must pass the address policy (address-policy.ts) unless private addresses are allowed.
// The signing secret is returned once, here, and stored only encrypted; the endpoint, its secret
// and the audit entry commit together.
import { randomUUID } from 'node:crypto';
import type { AdminContext } from '../context.ts';
import { notFound, validationFailed } from '../../shared/errors.ts';
import { recordAudit } from '../console/audit.ts';
import * as endpoints from '../../storage/db/repositories/events/webhook-endpoints.ts';
import { findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import { assertWithinCap } from '../organizations/within-cap.ts';
import { checkEndpointFields, checkTypesWithinPlan } from './endpoint-input.ts';
import { endpointLabel, endpointView } from './endpoint-view.ts';
import { MAX_ENDPOINTS_PER_ORG, type NewWebhookEndpoint } from './schema.ts';
import { contextSecretsKey, encryptSigningSecret, generateSigningSecret } from './signing-secrets.ts';

export async function createEndpoint({
  ctx,
  input,
}: {
  ctx: AdminContext;
  input: { url: string; description?: string; eventTypes: string[] };
}): Promise<NewWebhookEndpoint> {
  const { fields, issues } = await checkEndpointFields(ctx, input);
  if (issues.length > 0) throw validationFailed(issues);
  const org = await findOrganization(ctx.db.kysely, ctx.actor.organizationId);
  if (!org) throw notFound('Organization');
  checkTypesWithinPlan(org.plan, fields.eventTypes);
  const key = await contextSecretsKey(ctx);
  const secret = generateSigningSecret();
  const now = ctx.now();
  const record: endpoints.WebhookEndpointRecord = {
    id: randomUUID(),
    organizationId: org.id,
    url: fields.url!,
    description: fields.description ?? '',
    eventTypes: fields.eventTypes!,
    status: 'enabled',
    disabledReason: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await assertWithinCap(tx, org.id, 'endpoints', MAX_ENDPOINTS_PER_ORG, endpoints.countEndpoints);
    await endpoints.insertEndpoint(tx, record);
    await endpoints.insertSecret(tx, {
      id: randomUUID(),
      endpointId: record.id,
      organizationId: org.id,
      secretCiphertext: encryptSigningSecret(key, record.id, secret),
      createdAt: now,
      expiresAt: null,
    });
    const target = { type: 'webhook_endpoint' as const, id: record.id, label: endpointLabel(record) };
    await recordAudit(tx, { organizationId: org.id, actor: ctx.actor, action: 'webhook_endpoint.create', target, at: now });
  });
  return { ...endpointView(record), secret };
}
