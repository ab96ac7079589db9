// One webhook endpoint of the actor's organization; another organization's is not found.
import type { AdminContext } from '../context.ts';
import { notFound } from '../../shared/errors.ts';
import * as endpoints from '../../storage/db/repositories/events/webhook-endpoints.ts';
import { endpointView } from './endpoint-view.ts';
import type { WebhookEndpoint } from './schema.ts';

export async function getEndpoint({ ctx, input }: { ctx: AdminContext; input: { endpointId: string } }): Promise<WebhookEndpoint> {
  const found = await endpoints.findEndpoint(ctx.db.kysely, ctx.actor.organizationId, input.endpointId);
  if (!found) throw notFound('Webhook endpoint');
  return endpointView(found);
}
