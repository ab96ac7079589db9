// The shapes of a control: the list item and the get-one answer, with the computed status.
import { Type, type Static } from 'typebox';
import { CONTROL_SCOPES, FUNCTION_GROUPINGS } from '../../shared/vocabulary.ts';
import { Assignee, Entity, EpochMs, MappedFramework, MappedRisk, NullableEpochMs, PersonStamp } from '../../shared/sub-objects.ts';

export const CONTROL_STATUSES = ['compliant', 'non_compliant', 'not_applicable'] as const;

const Percentage = Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Literal('not_applicable')], {
  description: "floor(100 × complete / relevant artifacts), or 'not_applicable' when the status is not_applicable.",
});
const Status = Type.Enum([...CONTROL_STATUSES], {
  description:
    'Computed: not_applicable when the control is out of scope or has no relevant artifact; compliant when every relevant artifact is complete; otherwise non_compliant.',
});

const defaults = {
  controlId: Type.String(),
  controlCode: Type.String(),
  controlName: Type.String(),
  controlDomain: Type.String(),
  functionGrouping: Type.Enum([...FUNCTION_GROUPINGS]),
  controlScope: Type.Enum([...CONTROL_SCOPES]),
  status: Status,
  controlCompliancePercentage: Percentage,
  assignees: Type.Array(Assignee),
  entities: Type.Array(Entity),
};

const authorship = {
  addedBy: Type.Optional(PersonStamp),
  addedOn: Type.Optional(EpochMs),
  lastModifiedBy: Type.Optional(PersonStamp),
  modifiedOn: Type.Optional(NullableEpochMs),
};

export const ControlSummary = Type.Object({
  ...defaults,
  mappedFrameworkIds: Type.Optional(Type.Array(Type.String(), { description: 'Ordered by framework name, then ID.' })),
  outOfScopeReason: Type.Optional(Type.String()),
  markedOutOfScopeBy: Type.Optional(PersonStamp),
  ...authorship,
});

/** The control's status computed over one of its frameworks alone. */
export const ComplianceOverviewEntry = Type.Object({
  frameworkName: Type.String(),
  entities: Type.Array(Entity, { description: "The framework's entities." }),
  controlStatus: Status,
  artifactCompliancePercentage: Percentage,
});

export const MappedArtifact = Type.Object({
  name: Type.String(),
  artifactType: Type.Enum(['policy', 'evidence', 'test']),
  artifactStatus: Type.String({ description: "The policy's or evidence record's status, or the test's computed status." }),
  entities: Type.Array(Entity),
  frameworks: Type.Array(Type.String(), { description: 'Names of the frameworks the artifact is mapped to.' }),
  isRelevant: Type.Boolean({ description: 'Policies and evidence: their flag; tests: status is not ignored.' }),
  justification: Type.Optional(Type.String({ description: 'notRelevantReason or ignoreReason, when recorded.' })),
});

export const ControlRequirement = Type.Object({
  frameworkName: Type.String(),
  requirementCode: Type.String(),
  requirementName: Type.String(),
});

export const ControlDetail = Type.Object({
  ...defaults,
  controlDescription: Type.Optional(Type.String()),
  mappedFrameworks: Type.Array(MappedFramework),
  controlQuestions: Type.Array(Type.String()),
  outOfScopeReason: Type.Optional(Type.String()),
  ...authorship,
  mappedRequirements: Type.Array(ControlRequirement),
  complianceOverview: Type.Optional(Type.Array(ComplianceOverviewEntry)),
  mappedArtifacts: Type.Optional(Type.Array(MappedArtifact)),
  mappedRisks: Type.Optional(Type.Array(MappedRisk)),
});

/** A control list item. */
export type Control = Static<typeof ControlSummary>;
export type ComplianceOverviewEntry = Static<typeof ComplianceOverviewEntry>;
export type MappedArtifact = Static<typeof MappedArtifact>;
export type ControlRequirement = Static<typeof ControlRequirement>;
export type ControlDetail = Static<typeof ControlDetail>;
