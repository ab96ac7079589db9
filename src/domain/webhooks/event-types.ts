// The event types an endpoint may subscribe to: the catalog of change events (issue 15; the events
// engineer's src/domain/events/schema.ts holds it as EVENT_TYPES), or "*" for every type.
// `webhook.test` is not subscribable: a test event goes to the endpoint it is sent to whatever its
// types.
//
// MERGE NOTE: until src/domain/events/schema.ts is on this branch the list is spelled here; when it
// is, this line becomes `export { EVENT_TYPES as SUBSCRIBABLE_EVENT_TYPES } from '../events/schema.ts'`
// so the catalog is defined once.
export const SUBSCRIBABLE_EVENT_TYPES = [
  'vulnerability.created',
  'vulnerability.updated',
  'evidence.attachments_added',
  'evidence.status_changed',
  'control.status_changed',
  'framework.progress_changed',
  'credential.created',
  'credential.revoked',
] as const;

/** Subscribes to every type, present and future. */
export const ALL_EVENT_TYPES = '*';
