// The shapes policies and evidence records share: the default list fields after their ID, name
// and status, the optional fields, the mappings of a get-one answer and a file entry (a policy
// document or an evidence attachment). Each resource's schema.ts spreads these properties.
import { Type, type Static } from 'typebox';
import { DEPARTMENTS, EFFORT_ESTIMATES, GAP_STATUSES, RECURRENCES } from '../../shared/vocabulary.ts';
import {
  Assignee,
  Entity,
  EpochMs,
  MappedControl,
  MappedFramework,
  MappedRequirement,
  NullableEpochMs,
  PersonStamp,
  Ticket,
} from '../../shared/sub-objects.ts';

const oneOf = (values: readonly string[], what: string) => Type.String({ description: `${what}: one of ${values.join(', ')}.` });

/** Default list fields both resources have, after their ID, name and status. */
export const commonListProperties = {
  department: Type.Optional(
    Type.String({ description: `Free text, for example ${DEPARTMENTS.slice(0, 3).join(', ')}; left out when unassigned.` }),
  ),
  assignees: Type.Array(Assignee),
  approvers: Type.Array(PersonStamp),
  isRelevant: Type.Boolean(),
  nextReviewDate: NullableEpochMs,
  entities: Type.Array(Entity),
  gapStatus: Type.Enum([...GAP_STATUSES]),
};

/** Optional fields both resources have (present only when asked for, and when they have a value). */
export const commonOptionalProperties = {
  mappedFrameworkIds: Type.Optional(Type.Array(Type.String())),
  mappedControlIds: Type.Optional(Type.Array(Type.String())),
  notRelevantReason: Type.Optional(Type.String()),
  effortEstimate: Type.Optional(oneOf(EFFORT_ESTIMATES, 'Rough size of the work left')),
  recurrence: Type.Optional(oneOf(RECURRENCES, 'Cadence')),
  addedBy: Type.Optional(PersonStamp),
  addedOn: Type.Optional(EpochMs),
  lastModifiedBy: Type.Optional(PersonStamp),
  modifiedOn: Type.Optional(NullableEpochMs),
};

/** The mappings every get-one answer carries. */
export const mappingProperties = {
  mappedFrameworks: Type.Array(MappedFramework),
  mappedControls: Type.Array(MappedControl),
  mappedRequirements: Type.Array(MappedRequirement),
};

/** The fields of a policy document or an evidence attachment. */
export const fileEntryProperties = {
  displayName: Type.String(),
  type: Type.String({ description: 'File-type family (word, excel, image…), or `link` for an external link.' }),
  url: Type.Optional(Type.String({ description: 'Only for an external link a user added; never for a file the service hosts.' })),
  note: Type.Optional(Type.String()),
  addedBy: Type.Optional(PersonStamp),
  addedOn: EpochMs,
  updatedBy: Type.Optional(PersonStamp),
  updatedOn: Type.Optional(EpochMs),
};

export const Tickets = Type.Array(Ticket);

const CommonList = Type.Object(commonListProperties);
const CommonOptional = Type.Object(commonOptionalProperties);
const CommonMappings = Type.Object(mappingProperties);
const FileEntry = Type.Object(fileEntryProperties);

/** The default list fields both resources have; `status` is narrowed by each resource's schema. */
export type CommonListFields = Static<typeof CommonList> & { status: string };
/** The optional fields both resources have; both also have a `source`, described by each. */
export type CommonOptionalFields = Static<typeof CommonOptional> & { source?: string };
export type CommonMappings = Static<typeof CommonMappings>;
/** A document or attachment as the API shows it: no URL unless it is an external link. */
export type FileEntry = Static<typeof FileEntry>;
export type GapStatus = Static<typeof commonListProperties.gapStatus>;
