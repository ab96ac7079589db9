// The shapes of a policy: the list item and the get-one answer, which extends it.
import { Type, type Static } from 'typebox';
import { POLICY_BEHAVIORS, POLICY_SOURCES, POLICY_STATUSES } from '../../shared/vocabulary.ts';
import { commonListProperties, commonOptionalProperties, fileEntryProperties, mappingProperties, Tickets } from '../artifacts/schema.ts';
import { EpochMs, NullableEpochMs, PersonStamp } from '../../shared/sub-objects.ts';

/** A policy list item; the get-one answer extends it. */
export const policyProperties = {
  policyId: Type.String(),
  policyCustomId: Type.String(),
  policyName: Type.String(),
  status: Type.Enum([...POLICY_STATUSES]),
  ...commonListProperties,
  aiDetectedGaps: Type.Array(Type.String()),
  policyBehavior: Type.Optional(Type.String({ description: `One of ${POLICY_BEHAVIORS.join(', ')}.` })),
  ...commonOptionalProperties,
  versionNumber: Type.Optional(Type.String()),
  source: Type.Optional(Type.String({ description: `Where the policy came from: one of ${POLICY_SOURCES.join(', ')}.` })),
  publishedBy: Type.Optional(PersonStamp),
  publishedOn: Type.Optional(NullableEpochMs),
};

export const Policy = Type.Object(policyProperties);

export const PolicyVersion = Type.Object({ versionName: Type.String(), publishedBy: Type.Optional(PersonStamp), publishedOn: EpochMs });

export const PolicyDetail = Type.Object({
  ...policyProperties,
  policyRequirementText: Type.Optional(Type.String()),
  ...mappingProperties,
  publishedOn: NullableEpochMs,
  statusReason: Type.Optional(
    Type.String({
      description:
        'Extension: why the policy is in its status, when time moved it there (`needs_review`: the next review date has passed). Absent otherwise.',
    }),
  ),
  documents: Type.Optional(Type.Array(Type.Object(fileEntryProperties))),
  versionHistory: Type.Optional(Type.Array(PolicyVersion)),
  tickets: Type.Optional(Tickets),
});

export type Policy = Static<typeof Policy>;
export type PolicyVersion = Static<typeof PolicyVersion>;
export type PolicyDetail = Static<typeof PolicyDetail>;
