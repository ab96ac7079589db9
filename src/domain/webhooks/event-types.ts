// The event types an endpoint may subscribe to: the catalog of change events
// (src/domain/events/schema.ts), or "*" for every type. `webhook.test` is not subscribable: a test
// event goes to the endpoint it is sent to whatever its types.
export { EVENT_TYPES as SUBSCRIBABLE_EVENT_TYPES } from '../events/schema.ts';

/** Subscribes to every type, present and future. */
export const ALL_EVENT_TYPES = '*';
