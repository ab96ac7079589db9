// The wire JSON text of an event: the feed's item and the webhook request body. Its fields in the
// documented order, with `data` spliced in as already serialized (stored events keep it as text).
import type { EventRow } from '../../storage/db/repositories/events/events.ts';

export function eventPayload(e: Pick<EventRow, 'id' | 'type' | 'occurredAt' | 'resourceType' | 'resourceId' | 'data'>): string {
  return `{"eventId":${JSON.stringify(e.id)},"type":${JSON.stringify(e.type)},"occurredAt":${e.occurredAt},"resourceType":${JSON.stringify(e.resourceType)},"resourceId":${JSON.stringify(e.resourceId)},"data":${e.data}}`;
}
