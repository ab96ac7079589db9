// A delivery's attempts, first to last, for the console's delivery details.
import type { AdminContext } from '../context.ts';
import { notFound } from '../../shared/errors.ts';
import { getDelivery, listAttempts } from '../../storage/db/repositories/events/webhook-deliveries.ts';
import { attemptView, type WebhookDeliveryAttempt } from './delivery-schema.ts';

export async function listDeliveryAttempts({
  ctx,
  input,
}: {
  ctx: AdminContext;
  input: { deliveryId: string };
}): Promise<WebhookDeliveryAttempt[]> {
  const organizationId = ctx.actor.organizationId;
  if (!(await getDelivery(ctx.db.kysely, organizationId, input.deliveryId))) throw notFound('Webhook delivery');
  return (await listAttempts(ctx.db.kysely, organizationId, input.deliveryId)).map(attemptView);
}
