// The transactional outbox (issue 15): every write calls recordEvents inside the transaction that
// makes its change, so an event exists if and only if the change committed: a write that fails or
// rolls back takes its events with it, and an idempotent replay (which runs no transaction)
// records none.
//
// Numbering: the events of one call take consecutive numbers of the organization's event_seq in
// one UPDATE … RETURNING, which also locks the organization's row until the transaction ends
// (takeEventNumbers). Every write already bumps its data versions first, on the same row, so the
// lock is taken at the start of the write; a write that bumps nothing (credentials) takes it here.
// Either way a second write of the organization takes its numbers after the first committed, and
// the feed, which reads in number order, never skips a number that commits later.
//
// Each event is also fanned out to the organization's webhook endpoints here (webhooks/enqueue.ts).
import { shareTheLoop } from '../../shared/event-loop-turns.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { insertEvents, takeEventNumbers, type StoredEvent } from '../../storage/db/repositories/events/events.ts';
import { newEventId } from './event-id.ts';
import { enqueueDeliveries } from '../webhooks/enqueue.ts';
import { resourceTypeOf, type EventDataOf, type EventType } from './schema.ts';

/** An event a write is about to record: its type, the resource's ID as the API shows it, and its data. */
export type NewEvent = {
  [T in EventType]: { type: T; resourceId: string; occurredAt: number; data: EventDataOf<T> };
}[EventType];

/** What the fan-out needs of a recorded event (a delivery builds its body from the stored event). */
export interface RecordedEvent {
  eventId: string;
  type: EventType;
  /** the organization's event number: commit order */
  seq: number;
}

/**
 * Off only in bench/outbox.ts, which measures what recording adds to a write by timing the same
 * writes with and without it in one run. Nothing else may turn it off.
 */
let recording = true;
export function setEventRecordingForBench(enabled: boolean): void {
  recording = enabled;
}

export async function recordEvents(trx: Kysely<Database>, organizationId: string, events: readonly NewEvent[]): Promise<RecordedEvent[]> {
  if (events.length === 0 || !recording) return [];
  const last = await takeEventNumbers(trx, organizationId, events.length);
  const first = last - events.length + 1;
  const rows: StoredEvent[] = [];
  const recorded: RecordedEvent[] = [];
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as NewEvent;
    // an event's data is a whole record: a batch of an import's 500 took 13-32 ms to serialize (issue 36)
    if (i % 64 === 63) await shareTheLoop();
    const eventId = newEventId(event.occurredAt);
    const resourceType = resourceTypeOf(event.type);
    const data = JSON.stringify(event.data);
    const row: StoredEvent = {
      seq: first + i,
      id: eventId,
      type: event.type,
      resourceType,
      resourceId: event.resourceId,
      occurredAt: event.occurredAt,
      data,
    };
    rows.push(row);
    recorded.push({ eventId, type: event.type, seq: first + i });
  }
  await insertEvents(trx, organizationId, rows);
  // The webhook deliveries of these events, in the same transaction: one exists if and only if its event does.
  await enqueueDeliveries(trx, organizationId, recorded, events[0].occurredAt);
  return recorded;
}
