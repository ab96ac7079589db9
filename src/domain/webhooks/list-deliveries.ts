// An endpoint's deliveries as the console pages through them: newest first, with an opaque cursor
// naming the last one shown (not secret: an administrator only pages through their own
// organization's deliveries; validated like the audit log's).
import type { AdminContext } from '../context.ts';
import { notFound, validationFailed } from '../../shared/errors.ts';
import { listEndpointDeliveries, type DeliveryRow } from '../../storage/db/repositories/events/webhook-deliveries.ts';
import { findEndpoint } from '../../storage/db/repositories/events/webhook-endpoints.ts';
import { deliveryView, type WebhookDelivery } from './delivery-schema.ts';

const encodeCursor = (d: DeliveryRow) => Buffer.from(`${d.created_at}:${d.id}`).toString('base64url');
function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const match = /^(\d{1,16}):(dlv_[0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw validationFailed([{ field: 'cursor', message: 'is not a cursor this endpoint issued' }]);
  return { createdAt: Number(match[1]), id: match[2] };
}

export async function listDeliveries({
  ctx,
  input,
}: {
  ctx: AdminContext;
  input: { endpointId: string; count: number; cursor?: string };
}): Promise<{ deliveries: WebhookDelivery[]; nextCursor: string | null }> {
  const before = input.cursor ? decodeCursor(input.cursor) : undefined;
  const organizationId = ctx.actor.organizationId;
  if (!(await findEndpoint(ctx.db.kysely, organizationId, input.endpointId))) throw notFound('Webhook endpoint');
  const rows = await listEndpointDeliveries(ctx.db.kysely, organizationId, input.endpointId, { limit: input.count + 1, before });
  const page = rows.slice(0, input.count);
  return { deliveries: page.map(deliveryView), nextCursor: rows.length > input.count ? encodeCursor(page[page.length - 1]) : null };
}
