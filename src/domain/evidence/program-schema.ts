// An evidence record as a program document writes it (docs/program-documents.md, "Evidence"):
// every field GET /v1/evidence/{id} shows with all its expansions, references named by key.
// Attachments are external links only: files the service hosts stay with the organization that
// uploaded them, an apply never changes or removes them, and an export leaves them out.
import { Type, type Static } from 'typebox';
import {
  EFFORT_ESTIMATES,
  EVIDENCE_COLLECTION_METHODS,
  EVIDENCE_SOURCES,
  EVIDENCE_STATUSES,
  GAP_STATUSES,
  RECURRENCES,
} from '../vocabulary.ts';
import { EntryKey, KeyList, LongText, Moment, Name, NullableMoment, PersonKeyList, RequirementRefs, Ticket, Url } from '../program-refs.ts';

/** An external link attached to an evidence record (a file the service hosts is never written by a document). */
export const EvidenceLink = Type.Object(
  {
    displayName: Name,
    url: Url,
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Default `link`.' })),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
    evidenceDate: Moment,
    periodStart: Type.Optional(NullableMoment),
    periodEnd: Type.Optional(NullableMoment),
    addedBy: Type.Optional(EntryKey),
    addedOn: Type.Optional(Moment),
    updatedBy: Type.Optional(EntryKey),
    updatedOn: Type.Optional(Moment),
  },
  {
    additionalProperties: false,
    description:
      'An attachment that is an external link. `periodStart`/`periodEnd` default to the period the evidence’s `recurrence` gives `evidenceDate`; `addedOn` defaults to the time of the apply.',
  },
);

export const EvidenceEntry = Type.Object(
  {
    key: EntryKey,
    name: Name,
    status: Type.Optional(Type.Enum([...EVIDENCE_STATUSES], { description: 'Default `not_uploaded`.' })),
    department: Type.Optional(Name),
    isRelevant: Type.Optional(Type.Boolean({ description: 'Default true.' })),
    notRelevantReason: Type.Optional(LongText),
    nextReviewDate: Type.Optional(NullableMoment),
    gapStatus: Type.Optional(Type.Enum([...GAP_STATUSES], { description: 'Default: `gaps_detected` when `gaps` lists any, else `no_gaps`.' })),
    gaps: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { maxItems: 100 })),
    recurrence: Type.Optional(Type.Enum([...RECURRENCES])),
    effortEstimate: Type.Optional(Type.Enum([...EFFORT_ESTIMATES])),
    source: Type.Optional(Type.Enum([...EVIDENCE_SOURCES])),
    evidenceCollectionMethod: Type.Optional(Type.Enum([...EVIDENCE_COLLECTION_METHODS])),
    evidenceRequirementText: Type.Optional(LongText),
    revisionRequestedBy: Type.Optional(EntryKey),
    revisionRequestedOn: Type.Optional(Moment),
    rejectionReason: Type.Optional(LongText),
    addedBy: Type.Optional(EntryKey),
    addedOn: Type.Optional(Moment),
    lastModifiedBy: Type.Optional(EntryKey),
    modifiedOn: Type.Optional(NullableMoment),
    assignees: Type.Optional(PersonKeyList('People (by key); the first is the primary assignee.')),
    approvers: Type.Optional(PersonKeyList('People (by key) who approve an upload.')),
    entities: Type.Optional(KeyList('Entities (by key).')),
    requirements: Type.Optional(RequirementRefs),
    controls: Type.Optional(KeyList('Controls (by key) this record is mapped to.')),
    tests: Type.Optional(KeyList('Tests (by key) that collect this record: the `mappedTests` expansion.')),
    tickets: Type.Optional(Type.Array(Ticket, { maxItems: 100 })),
    attachments: Type.Optional(Type.Array(EvidenceLink, { maxItems: 100 })),
  },
  { additionalProperties: false },
);

export type EvidenceLink = Static<typeof EvidenceLink>;
export type EvidenceEntry = Static<typeof EvidenceEntry>;
