// The request body of a delivery, built when it is sent (issue 28, items 1, 2 and 4): a
// `webhook.test` delivery carries its own; any other is read from its stored event, with the
// organization's plan as it is now. An event gone past its retention, or of a resource the plan no
// longer includes, is not sent: the delivery fails with the reason, which the console shows.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { findEvent } from '../../storage/db/repositories/events/events.ts';
import { findOrganizationState } from '../../storage/db/repositories/organizations/organizations.ts';
import { dataWithinPlan, planIncludesEvent, planResourceOf } from '../events/plan-bounds.ts';
import { eventPayload } from '../events/payload.ts';

export type DeliveryBody = { payload: string } | { refused: string };

export const EVENT_GONE = 'the event is no longer kept (events are removed after EVENT_RETENTION_DAYS), so it cannot be sent';

export async function deliveryBody(
  db: Kysely<Database>,
  d: { organization_id: string; event_id: string; payload: string | null },
): Promise<DeliveryBody> {
  if (d.payload !== null) return { payload: d.payload };
  const event = await findEvent(db, d.organization_id, d.event_id);
  if (!event) return { refused: EVENT_GONE };
  const plan = new Set((await findOrganizationState(db, d.organization_id))?.plan ?? []);
  if (!planIncludesEvent(plan, event.type)) {
    return { refused: `the organization's plan no longer includes ${planResourceOf(event.type)} data, so the event is not sent` };
  }
  const data: unknown = JSON.parse(event.data);
  const shown = dataWithinPlan(plan, event.type, data);
  return { payload: eventPayload(shown === data ? event : { ...event, data: JSON.stringify(shown) }) };
}
