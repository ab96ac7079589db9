// The actor's organization's webhook endpoints, oldest first, without their secrets.
import type { AdminContext } from '../context.ts';
import * as endpoints from '../../storage/db/repositories/events/webhook-endpoints.ts';
import { endpointView } from './endpoint-view.ts';
import type { WebhookEndpoint } from './schema.ts';

export async function listEndpoints({ ctx }: { ctx: AdminContext }): Promise<WebhookEndpoint[]> {
  return (await endpoints.listEndpoints(ctx.db.kysely, ctx.actor.organizationId)).map(endpointView);
}
