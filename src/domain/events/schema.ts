// The change events (issue 15): the wire object, identical in the events feed (GET /v1/events) and
// as a webhook request body, defined once here with one `data` schema per type. The feed's route
// serializes and documents them with these schemas; recordEvents (record.ts) builds them.
import { Type, type Static, type TSchema } from 'typebox';
import { Credential } from '../auth/schema.ts';
import { CONTROL_STATUSES } from '../controls/schema.ts';
import { Attachment } from '../evidence/schema.ts';
import { ControlDetail } from '../controls/schema.ts';
import { EvidenceDetail } from '../evidence/schema.ts';
import { Framework, FrameworkProgress } from '../frameworks/schema.ts';
import { PolicyDetail } from '../policies/schema.ts';
import { TestDetail } from '../tests/schema.ts';
import { EpochMs } from '../../shared/sub-objects.ts';
import { VulnerabilityDetail } from '../vulnerabilities/schema.ts';
import { EVIDENCE_STATUSES, POLICY_STATUSES, TEST_STATUSES } from '../../shared/vocabulary.ts';

/** Every event type, `<resource>.<action>`, in the order the documentation lists them. */
export const EVENT_TYPES = [
  'vulnerability.created',
  'vulnerability.updated',
  'vulnerability.deleted',
  'evidence.created',
  'evidence.deleted',
  'evidence.attachments_added',
  'evidence.status_changed',
  'evidence.updated',
  'policy.created',
  'policy.deleted',
  'policy.status_changed',
  'policy.updated',
  'test.created',
  'test.deleted',
  'test.status_changed',
  'test.updated',
  'control.created',
  'control.deleted',
  'control.updated',
  'control.status_changed',
  'framework.created',
  'framework.deleted',
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

/** `data` of a `<resource>.created` event: the record as its GET answers it (default fields), right after the write. */
const createdOf = <S extends TSchema>(property: string, shape: S, path: string, by: string) =>
  Type.Object({ [property]: shape } as Record<string, S>, {
    description: `A ${by} was created; \`${property}\` is the record exactly as GET ${path} answers it with its default fields.`,
  });

/** `data` of a `<resource>.deleted` event: the ID of the record deleted. */
const deletedOf = (idField: string, by: string) =>
  Type.Object(
    { [idField]: Type.String({ description: `The ID of the ${by} deleted, as the API showed it.` }) },
    { description: `A ${by} was deleted (a program document applied with prune).` },
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
  'vulnerability.deleted': deletedOf('vulnerabilityId', 'finding'),
  'evidence.created': createdOf('evidence', EvidenceDetail, '/v1/evidence/{evidenceId}', 'evidence record'),
  'evidence.deleted': deletedOf('evidenceId', 'evidence record'),
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
  'policy.created': createdOf('policy', PolicyDetail, '/v1/policies/{policyId}', 'policy'),
  'policy.deleted': deletedOf('policyId', 'policy'),
  'policy.status_changed': Type.Object(
    { before: PolicyStatus, after: PolicyStatus },
    { description: 'A policy’s status changed (a lifecycle move, a review falling due, a program document).' },
  ),
  'policy.updated': changesOf('policy', '/v1/policies/{policyId}'),
  'test.created': createdOf('test', TestDetail, '/v1/tests/{testId}', 'test'),
  'test.deleted': deletedOf('testId', 'test'),
  'test.status_changed': Type.Object(
    { before: TestStatus, after: TestStatus },
    { description: 'A test’s status changed (a pushed result, a program document).' },
  ),
  'test.updated': changesOf('test', '/v1/tests/{testId}'),
  'control.created': createdOf('control', ControlDetail, '/v1/controls/{controlId}', 'control'),
  'control.deleted': deletedOf('controlId', 'control'),
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
  'framework.created': Type.Object(
    { framework: Framework },
    {
      description:
        'A framework was created; `framework` is the framework exactly as GET /v1/frameworks lists it with its default fields (its complianceProgress after the write).',
    },
  ),
  'framework.deleted': deletedOf('frameworkId', 'framework'),
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
  'vulnerability.deleted': 'A vulnerability finding was deleted.',
  'evidence.created': 'An evidence record was created.',
  'evidence.deleted': 'An evidence record was deleted.',
  'evidence.attachments_added': 'Attachments were uploaded to an evidence record.',
  'evidence.status_changed': 'An evidence record’s status changed.',
  'evidence.updated': 'An evidence record’s fields changed.',
  'policy.created': 'A policy was created.',
  'policy.deleted': 'A policy was deleted.',
  'policy.status_changed': 'A policy’s status changed.',
  'policy.updated': 'A policy’s fields changed.',
  'test.created': 'A test was created.',
  'test.deleted': 'A test was deleted.',
  'test.status_changed': 'A test’s status changed.',
  'test.updated': 'A test’s fields changed.',
  'control.created': 'A control was created.',
  'control.deleted': 'A control was deleted.',
  'control.updated': 'A control’s fields changed (for example its scope).',
  'control.status_changed': 'Computed: a control’s compliance status flipped.',
  'framework.created': 'A framework was created.',
  'framework.deleted': 'A framework was deleted.',
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
export const VulnerabilityDeletedEvent = eventOf('vulnerability.deleted');
export const EvidenceCreatedEvent = eventOf('evidence.created');
export const EvidenceDeletedEvent = eventOf('evidence.deleted');
export const EvidenceAttachmentsAddedEvent = eventOf('evidence.attachments_added');
export const EvidenceStatusChangedEvent = eventOf('evidence.status_changed');
export const EvidenceUpdatedEvent = eventOf('evidence.updated');
export const PolicyCreatedEvent = eventOf('policy.created');
export const PolicyDeletedEvent = eventOf('policy.deleted');
export const PolicyStatusChangedEvent = eventOf('policy.status_changed');
export const PolicyUpdatedEvent = eventOf('policy.updated');
export const TestCreatedEvent = eventOf('test.created');
export const TestDeletedEvent = eventOf('test.deleted');
export const TestStatusChangedEvent = eventOf('test.status_changed');
export const TestUpdatedEvent = eventOf('test.updated');
export const ControlCreatedEvent = eventOf('control.created');
export const ControlDeletedEvent = eventOf('control.deleted');
export const ControlUpdatedEvent = eventOf('control.updated');
export const ControlStatusChangedEvent = eventOf('control.status_changed');
export const FrameworkCreatedEvent = eventOf('framework.created');
export const FrameworkDeletedEvent = eventOf('framework.deleted');
export const FrameworkProgressChangedEvent = eventOf('framework.progress_changed');
export const CredentialCreatedEvent = eventOf('credential.created');
export const CredentialRevokedEvent = eventOf('credential.revoked');

/** An event of the feed (every type but credential.*). */
export const FeedEvent = Type.Union(
  [
    VulnerabilityCreatedEvent,
    VulnerabilityUpdatedEvent,
    VulnerabilityDeletedEvent,
    EvidenceCreatedEvent,
    EvidenceDeletedEvent,
    EvidenceAttachmentsAddedEvent,
    EvidenceStatusChangedEvent,
    EvidenceUpdatedEvent,
    PolicyCreatedEvent,
    PolicyDeletedEvent,
    PolicyStatusChangedEvent,
    PolicyUpdatedEvent,
    TestCreatedEvent,
    TestDeletedEvent,
    TestStatusChangedEvent,
    TestUpdatedEvent,
    ControlCreatedEvent,
    ControlDeletedEvent,
    ControlUpdatedEvent,
    ControlStatusChangedEvent,
    FrameworkCreatedEvent,
    FrameworkDeletedEvent,
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
