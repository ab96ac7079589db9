// The sub-objects several resources share (people, entities, timestamps, mappings, tickets): each
// shape defined once as a TypeBox schema (it validates and documents the API's answers) with its
// type derived by `Static<>`.
import { Type, type Static } from 'typebox';

export const Entity = Type.Object({ entityId: Type.String(), entityName: Type.String() });
export const PersonStamp = Type.Object({ name: Type.String(), email: Type.String() });
export const EpochMs = Type.Integer({ description: 'Unix epoch milliseconds.' });
export const NullableEpochMs = Type.Union([EpochMs, Type.Null()]);

// The spec's shared sub-objects (section "Shared sub-objects").
export const Assignee = Type.Object({ name: Type.String(), email: Type.String(), isPrimary: Type.Boolean() });
export const MappedFramework = Type.Object({ frameworkId: Type.String(), frameworkName: Type.String() });
export const MappedControl = Type.Object({ controlId: Type.String(), controlCode: Type.String(), controlName: Type.String() });
/** A requirement a policy, evidence record or test is mapped to. */
export const MappedRequirement = Type.Object({
  frameworkId: Type.String(),
  frameworkName: Type.String(),
  requirementId: Type.String(),
  requirementCode: Type.String(),
  requirementName: Type.String(),
});
/** An application a test covers. */
export const Application = Type.Object({ name: Type.String() });
export const MappedRisk = Type.Object({ riskId: Type.String(), riskName: Type.String() });
/** A ticket of a policy, evidence record or test (vulnerability tickets are shaped `{ id, url, source }`). */
export const Ticket = Type.Object({ ticketId: Type.String(), source: Type.String(), url: Type.String() });

export type Entity = Static<typeof Entity>;
export type PersonStamp = Static<typeof PersonStamp>;
export type Assignee = Static<typeof Assignee>;
export type MappedFramework = Static<typeof MappedFramework>;
export type MappedControl = Static<typeof MappedControl>;
export type MappedRequirement = Static<typeof MappedRequirement>;
export type MappedRisk = Static<typeof MappedRisk>;
export type Application = Static<typeof Application>;
export type Ticket = Static<typeof Ticket>;
