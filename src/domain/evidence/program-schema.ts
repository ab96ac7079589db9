// An evidence record as a program document carries it (docs/program-documents.md, "Evidence"):
// every field GET /v1/evidence and GET /v1/evidence/{evidenceId} show with all their expansions,
// references by key: assignees, approvers, entities, the controls it is linked to, the
// requirements it meets, the tests that collect it (`mappedTests`), its tickets. Attachments are
// external links only: files the service hosts stay with the organization that uploaded them (an
// apply never changes or removes one, and an export leaves them out).
import { Type, type Static } from 'typebox';
import { ReviewFields } from '../kinds/review-fields.ts';
import {
  EFFORT_ESTIMATES,
  EVIDENCE_COLLECTION_METHODS,
  EVIDENCE_SOURCES,
  EVIDENCE_STATUSES,
  RECURRENCES,
} from '../../shared/vocabulary.ts';
import {
  EpochMs,
  KeyRefs,
  LIST_MAX_ITEMS,
  Name,
  NOTE_MAX_LENGTH,
  NullableMs,
  OrNull,
  PersonRef,
  ProgramAssignees,
  ProgramTickets,
  RecordKey,
  RequirementRefs,
  StampFields,
  Text,
  Url,
} from '../kinds/fields.ts';

/** Most external links one evidence record may carry. */
export const EVIDENCE_LINKS_MAX = 100;

/** An attachment that is an external link. */
export const ProgramEvidenceLink = Type.Object(
  {
    displayName: Name(),
    url: Url('The external link.'),
    type: Type.Optional(Name(50, 'Default `link`.')),
    note: Type.Optional(OrNull(Text(NOTE_MAX_LENGTH))),
    evidenceDate: EpochMs('The date the evidence is from.'),
    periodStart: Type.Optional(NullableMs('Default: the start of the period the evidence’s recurrence gives evidenceDate.')),
    periodEnd: Type.Optional(NullableMs('Default: the end of that period.')),
    addedBy: Type.Optional(PersonRef('added it')),
    addedOn: Type.Optional(EpochMs('Default: when it is first applied.')),
    updatedBy: Type.Optional(PersonRef('last updated it')),
    updatedOn: Type.Optional(OrNull(EpochMs())),
  },
  { additionalProperties: false },
);
export type ProgramEvidenceLink = Static<typeof ProgramEvidenceLink>;

export const ProgramEvidence = Type.Object(
  {
    key: RecordKey,
    name: Name(),
    status: Type.Optional(Type.Enum([...EVIDENCE_STATUSES], { description: 'Default not_uploaded.' })),
    ...ReviewFields,
    gaps: Type.Optional(Type.Array(Text(NOTE_MAX_LENGTH), { maxItems: LIST_MAX_ITEMS, description: 'The `gaps` expansion; in order.' })),
    recurrence: Type.Optional(OrNull(Type.Enum([...RECURRENCES]))),
    effortEstimate: Type.Optional(OrNull(Type.Enum([...EFFORT_ESTIMATES]))),
    source: Type.Optional(OrNull(Type.Enum([...EVIDENCE_SOURCES]))),
    evidenceCollectionMethod: Type.Optional(OrNull(Type.Enum([...EVIDENCE_COLLECTION_METHODS]))),
    requirementText: Type.Optional(OrNull(Text(undefined, 'The API’s evidenceRequirementText.'))),
    revisionRequestedBy: Type.Optional(PersonRef('asked for a revision')),
    revisionRequestedOn: Type.Optional(OrNull(EpochMs())),
    rejectionReason: Type.Optional(OrNull(Text(NOTE_MAX_LENGTH))),
    assignees: Type.Optional(ProgramAssignees),
    approvers: Type.Optional(KeyRefs('the approvers (people), in order')),
    entities: Type.Optional(KeyRefs('entities')),
    controls: Type.Optional(KeyRefs('the controls it is linked to')),
    requirements: Type.Optional(RequirementRefs),
    tests: Type.Optional(KeyRefs('the tests that collect it (the mappedTests expansion)')),
    tickets: Type.Optional(ProgramTickets),
    attachments: Type.Optional(
      Type.Array(ProgramEvidenceLink, {
        maxItems: EVIDENCE_LINKS_MAX,
        description: 'External links only; files the service hosts are kept as they are and never listed.',
      }),
    ),
    ...StampFields,
  },
  { additionalProperties: false },
);
export type ProgramEvidence = Static<typeof ProgramEvidence>;
