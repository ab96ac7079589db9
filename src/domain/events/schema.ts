// The change events (issue 15): the wire object, identical in the events feed (GET /v1/events) and
// as a webhook request body, defined once here with one `data` schema per type. The feed's route
// serializes and documents them with these schemas; recordEvents (record.ts) builds them.
import { Type, type Static, type TSchema } from 'typebox';
import { Credential } from '../auth/schema.ts';
import { CONTROL_STATUSES } from '../controls/schema.ts';
import { Attachment } from '../evidence/schema.ts';
import { FrameworkProgress } from '../frameworks/schema.ts';
import { EpochMs } from '../shared-schema.ts';
import { VulnerabilityDetail } from '../vulnerabilities/schema.ts';
import { EVIDENCE_STATUSES, POLICY_STATUSES, TEST_STATUSES } from '../vocabulary.ts';

/** Every event type, `<resource>.<action>`, in the order the documentation lists them. */
export const EVENT_TYPES = [
  'vulnerability.created',
  'vulnerability.updated',
  'evidence.attachments_added',
  'evidence.status_changed',
  'evidence.updated',
  'policy.status_changed',
  'policy.updated',
  'test.status_changed',
  'test.updated',
  'control.updated',
  'control.status_changed',
  'framework.progress_changed',
  'credential.created',
  'credential.revoked',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The types the feed gives: credential events are for administrators (webhooks only). */
export const FEED_EVENT_TYPES = EVENT_TYPES.filter((t) => !t.startsWith('credential.')) as Exclude<EventType, `credential.${string}`>[];
export type FeedEventType = (typeof FEED_EVENT_TYPES)[number];

export const EVENT_RESOURCE_TYPES = ['vulnerability', 'evidence', 'policy', 'test', 'control', 'framework', 'credential'] as const;
export type EventResourceType = (typeof EVENT_RESOURCE_TYPES)[number];

/** The resource an event type is about: the part before the dot. */
export const resourceTypeOf = (type: EventType): EventResourceType => type.slice(0, type.indexOf('.')) as EventResourceType;

export const EventId = Type.String({
  pattern: '^evt_[0-9A-HJKMNP-TV-Z]{26}$',
  description: '`evt_` then a ULID (26 characters of Crockford base32): unique, and sorts by creation time.',
});

const Change = Type.Object(
  {
    before: Type.Optional(Type.Unknown({ description: 'The value before the write; absent when the field had no value.' })),
    after: Type.Optional(Type.Unknown({ description: 'The value after the write; absent when the field has no value any more.' })),
  },
  { description: 'One changed field.' },
);

const ControlStatus = Type.Enum([...CONTROL_STATUSES]);
const EvidenceStatus = Type.Enum([...EVIDENCE_STATUSES]);
const PolicyStatus = Type.Enum([...POLICY_STATUSES]);
const TestStatus = Type.Enum([...TEST_STATUSES]);

/** `data` of a `<resource>.updated` event: only the fields that changed, named as the resource's GET names them. */
const changesOf = (resource: string, path: string) =>
  Type.Object(
    {
      changes: Type.Record(Type.String(), Change, {
        description: `Only the fields that changed, named as in GET ${path}, each with its value before and after.`,
      }),
    },
    { description: `A ${resource} changed; a write that changes nothing records no event.` },
  );

/** The `data` of each event type. */
export const EventData = {
  'vulnerability.created': Type.Object(
    { vulnerability: VulnerabilityDetail },
    { description: 'The finding created, exactly as GET /v1/vulnerabilities/{vulnerabilityId} answers it (default fields).' },
  ),
  'vulnerability.updated': Type.Object(
    {
      changes: Type.Record(Type.String(), Change, {
        description:
          'Only the fields that changed, named as in GET /v1/vulnerabilities/{vulnerabilityId} (for example `status`, `assignees`, `modifiedOn`), each with its value before and after.',
      }),
    },
    { description: 'A finding changed; an update that changes nothing records no event.' },
  ),
  'evidence.attachments_added': Type.Object(
    {
      attachments: Type.Array(Attachment, {
        description: 'The files of the upload, each as GET /v1/evidence/{evidenceId}?fields=attachments shows it.',
      }),
    },
    { description: 'Files were uploaded to an evidence record.' },
  ),
  'evidence.status_changed': Type.Object(
    { before: EvidenceStatus, after: EvidenceStatus },
    { description: 'An evidence record’s status changed (an upload makes it `uploaded`, or `pending_approval` when it has approvers).' },
  ),
  'evidence.updated': changesOf('evidence record', '/v1/evidence/{evidenceId}'),
  'policy.status_changed': Type.Object(
    { before: PolicyStatus, after: PolicyStatus },
    { description: 'A policy’s status changed (a lifecycle move, a review falling due, a program document).' },
  ),
  'policy.updated': changesOf('policy', '/v1/policies/{policyId}'),
  'test.status_changed': Type.Object(
    { before: TestStatus, after: TestStatus },
    { description: 'A test’s status changed (a pushed result, a program document).' },
  ),
  'test.updated': changesOf('test', '/v1/tests/{testId}'),
  'control.updated': changesOf('control', '/v1/controls/{controlId}'),
  'control.status_changed': Type.Object(
    {
      before: ControlStatus,
      after: ControlStatus,
      cause: Type.Optional(
        Type.Object(
          {
            type: Type.String({
              description: 'The type of the event whose write flipped the status (for example `evidence.status_changed`).',
            }),
            resourceId: Type.String({ description: 'The resourceId of that event.' }),
          },
          {
            description:
              "The change that caused this one, recorded in the same write. Absent when the organization's plan does not include the cause's resource (for example evidence), so the event never names a record the plan hides.",
          },
        ),
      ),
    },
    { description: 'Computed: a write flipped the control’s compliance status (as GET /v1/controls/{controlId} computes it).' },
  ),
  'framework.progress_changed': Type.Object(
    { before: FrameworkProgress, after: FrameworkProgress },
    { description: 'Computed: a write changed the framework’s complianceProgress (as GET /v1/frameworks shows it).' },
  ),
  'credential.created': Type.Object(
    { credential: Credential },
    { description: 'An API credential was created (console, `cds` or the demo loader); never its secret. Webhooks only.' },
  ),
  'credential.revoked': Type.Object(
    { credential: Credential },
    { description: 'An API credential was revoked; never its secret. Webhooks only.' },
  ),
} satisfies Record<EventType, TSchema>;

const TYPE_DESCRIPTIONS: Record<EventType, string> = {
  'vulnerability.created': 'A vulnerability finding was created.',
  'vulnerability.updated': 'A vulnerability finding was updated.',
  'evidence.attachments_added': 'Attachments were uploaded to an evidence record.',
  'evidence.status_changed': 'An evidence record’s status changed.',
  'evidence.updated': 'An evidence record’s fields changed.',
  'policy.status_changed': 'A policy’s status changed.',
  'policy.updated': 'A policy’s fields changed.',
  'test.status_changed': 'A test’s status changed.',
  'test.updated': 'A test’s fields changed.',
  'control.updated': 'A control’s fields changed (for example its scope).',
  'control.status_changed': 'Computed: a control’s compliance status flipped.',
  'framework.progress_changed': 'Computed: a framework’s complianceProgress changed.',
  'credential.created': 'An API credential was created (webhooks only, not in the feed).',
  'credential.revoked': 'An API credential was revoked (webhooks only, not in the feed).',
};

function eventOf<T extends EventType>(type: T) {
  return Type.Object(
    {
      eventId: EventId,
      type: Type.Literal(type),
      occurredAt: { ...EpochMs, description: 'When the change was made: Unix epoch milliseconds.' } as typeof EpochMs,
      resourceType: Type.Literal(resourceTypeOf(type)),
      resourceId: Type.String({ description: 'The ID of the resource changed, exactly as the API shows it elsewhere.' }),
      data: EventData[type],
    },
    { description: TYPE_DESCRIPTIONS[type] },
  );
}

export const VulnerabilityCreatedEvent = eventOf('vulnerability.created');
export const VulnerabilityUpdatedEvent = eventOf('vulnerability.updated');
export const EvidenceAttachmentsAddedEvent = eventOf('evidence.attachments_added');
export const EvidenceStatusChangedEvent = eventOf('evidence.status_changed');
export const EvidenceUpdatedEvent = eventOf('evidence.updated');
export const PolicyStatusChangedEvent = eventOf('policy.status_changed');
export const PolicyUpdatedEvent = eventOf('policy.updated');
export const TestStatusChangedEvent = eventOf('test.status_changed');
export const TestUpdatedEvent = eventOf('test.updated');
export const ControlUpdatedEvent = eventOf('control.updated');
export const ControlStatusChangedEvent = eventOf('control.status_changed');
export const FrameworkProgressChangedEvent = eventOf('framework.progress_changed');
export const CredentialCreatedEvent = eventOf('credential.created');
export const CredentialRevokedEvent = eventOf('credential.revoked');

/** An event of the feed (every type but credential.*). */
export const FeedEvent = Type.Union(
  [
    VulnerabilityCreatedEvent,
    VulnerabilityUpdatedEvent,
    EvidenceAttachmentsAddedEvent,
    EvidenceStatusChangedEvent,
    EvidenceUpdatedEvent,
    PolicyStatusChangedEvent,
    PolicyUpdatedEvent,
    TestStatusChangedEvent,
    TestUpdatedEvent,
    ControlUpdatedEvent,
    ControlStatusChangedEvent,
    FrameworkProgressChangedEvent,
  ],
  { description: 'A change event of the feed. `type` says which; `data` is documented per type.' },
);

/**
 * A change event as the feed gives it and webhooks send it: one shape per type, told apart by `type`.
 * The feed's events and then the webhook-only ones, so the two unions cannot drift apart.
 */
export const Event = Type.Union([...FeedEvent.anyOf, CredentialCreatedEvent, CredentialRevokedEvent], {
  description: 'A change event. `type` says which; `data` is documented per type.',
});

export type EventDataOf<T extends EventType> = Static<(typeof EventData)[T]>;
export type Event = Static<typeof Event>;
export type FeedEvent = Static<typeof FeedEvent>;
