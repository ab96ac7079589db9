// The fan-out of a write's events to the organization's webhook endpoints, inside the write's own
// transaction (issue 15's contract): a delivery exists if and only if its event committed. The
// endpoints are read in the transaction, never from a cache, so an endpoint created a moment ago
// receives the next event. Every node's worker hears of the rows at commit on PostgreSQL (a NOTIFY,
// storage/db/delivery-announcements.ts), this process's at once otherwise (nudge.ts).
//
// The organization's plan bounds the fan-out (events/plan-bounds.ts): an event of a resource the
// plan excludes is delivered to no endpoint, "*" included. A delivery holds no copy of its event:
// each attempt builds the body from the stored event (deliver.ts), so nothing outlives the event's
// retention and a plan changed meanwhile is applied when the delivery is sent.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { announceDeliveries, insertDeliveries, listEnabledEndpoints } from '../../storage/db/repositories/events/webhook-deliveries.ts';
import { findOrganizationState } from '../../storage/db/repositories/organizations/organizations.ts';
import { planIncludesEvent } from '../events/plan-bounds.ts';
import { newDeliveryId } from './delivery-id.ts';
import { nudgeDeliveryWorkers } from './nudge.ts';

export interface EnqueuedEvent {
  eventId: string;
  type: string;
}

/** Whether an endpoint subscribed to `types` (JSON array text; "*" is every type) receives `type`. */
export function subscribes(types: readonly string[], type: string): boolean {
  return types.includes('*') || types.includes(type);
}

function parseTypes(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

export async function enqueueDeliveries(
  trx: Kysely<Database>,
  organizationId: string,
  events: readonly EnqueuedEvent[],
  now: number,
): Promise<void> {
  if (events.length === 0) return;
  const endpoints = await listEnabledEndpoints(trx, organizationId);
  if (endpoints.length === 0) return;
  const plan = new Set((await findOrganizationState(trx, organizationId))?.plan ?? []);
  const delivered = events.filter((event) => planIncludesEvent(plan, event.type));
  const rows = [];
  for (const endpoint of endpoints) {
    const types = parseTypes(endpoint.eventTypes);
    for (const event of delivered) {
      if (!subscribes(types, event.type)) continue;
      rows.push({
        id: newDeliveryId(now),
        organization_id: organizationId,
        endpoint_id: endpoint.id,
        event_id: event.eventId,
        event_type: event.type,
        payload: null,
        status: 'pending' as const,
        next_attempt_at: now,
        created_at: now,
      });
    }
  }
  if (rows.length === 0) return;
  await insertDeliveries(trx, rows);
  await announceDeliveries(trx);
  nudgeDeliveryWorkers();
}
