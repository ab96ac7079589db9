// A policy as a program document carries it: every field GET /v1/policies and
// GET /v1/policies/{policyId} show, its documents (external links, or the metadata of files
// recorded elsewhere: a document never carries file bytes), its version history, tickets,
// assignees, approvers, entities, and its mappings: the controls it is linked to, the
// requirements it meets, the risks it treats.
import { Type, type Static } from 'typebox';
import { ReviewFields } from '../kinds/review-fields.ts';
import { EFFORT_ESTIMATES, POLICY_BEHAVIORS, POLICY_SOURCES, POLICY_STATUSES, RECURRENCES } from '../../shared/vocabulary.ts';
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

/** A policy document or an evidence attachment given as a link (or a file's metadata). */
export const ProgramFileEntry = Type.Object(
  {
    displayName: Name(),
    type: Name(50, 'File-type family (word, excel, pdf, image…), or `link` for an external link.'),
    url: Type.Optional(OrNull(Url('The external link.'))),
    note: Type.Optional(OrNull(Text(NOTE_MAX_LENGTH))),
    addedBy: Type.Optional(PersonRef('added it')),
    addedOn: Type.Optional(EpochMs('Default: when it is first applied.')),
    updatedBy: Type.Optional(PersonRef('last updated it')),
    updatedOn: Type.Optional(OrNull(EpochMs())),
  },
  { additionalProperties: false },
);
export type ProgramFileEntry = Static<typeof ProgramFileEntry>;

export const ProgramPolicyVersion = Type.Object(
  {
    versionName: Name(),
    publishedBy: Type.Optional(PersonRef('published it')),
    publishedOn: EpochMs(),
  },
  { additionalProperties: false },
);

export const ProgramPolicy = Type.Object(
  {
    key: RecordKey,
    customId: Name(100, 'What the program calls it, such as `POL-001` (the API’s policyCustomId).'),
    name: Name(),
    status: Type.Optional(Type.Enum([...POLICY_STATUSES], { description: 'Default not_uploaded.' })),
    ...ReviewFields,
    aiDetectedGaps: Type.Optional(Type.Array(Text(NOTE_MAX_LENGTH), { maxItems: LIST_MAX_ITEMS })),
    policyBehavior: Type.Optional(OrNull(Type.Enum([...POLICY_BEHAVIORS]))),
    versionNumber: Type.Optional(OrNull(Name(50))),
    effortEstimate: Type.Optional(OrNull(Type.Enum([...EFFORT_ESTIMATES]))),
    recurrence: Type.Optional(OrNull(Type.Enum([...RECURRENCES]))),
    source: Type.Optional(OrNull(Type.Enum([...POLICY_SOURCES]))),
    requirementText: Type.Optional(OrNull(Text(undefined, 'The API’s policyRequirementText.'))),
    publishedBy: Type.Optional(PersonRef('published it')),
    publishedOn: Type.Optional(NullableMs('Unix epoch milliseconds, or null.')),
    assignees: Type.Optional(ProgramAssignees),
    approvers: Type.Optional(KeyRefs('the approvers (people)')),
    entities: Type.Optional(KeyRefs('entities')),
    controls: Type.Optional(KeyRefs('the controls it is linked to')),
    requirements: Type.Optional(RequirementRefs),
    risks: Type.Optional(KeyRefs('risks')),
    documents: Type.Optional(Type.Array(ProgramFileEntry, { maxItems: LIST_MAX_ITEMS, description: 'In order.' })),
    versionHistory: Type.Optional(Type.Array(ProgramPolicyVersion, { maxItems: LIST_MAX_ITEMS, description: 'In order.' })),
    tickets: Type.Optional(ProgramTickets),
    ...StampFields,
  },
  { additionalProperties: false },
);
export type ProgramPolicy = Static<typeof ProgramPolicy>;
