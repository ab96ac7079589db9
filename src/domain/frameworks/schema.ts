// The shape of a framework in the framework list, with its computed progress.
import { Type, type Static } from 'typebox';
import { Entity, EpochMs, NullableEpochMs, PersonStamp } from '../../shared/sub-objects.ts';

const counts = <K extends string>(key: K) =>
  Type.Object({ [key]: Type.Integer(), total: Type.Integer(), percentage: Type.Integer() } as Record<
    K | 'total' | 'percentage',
    ReturnType<typeof Type.Integer>
  >);

/** How far a framework is: complete, total and percentage of each kind of artifact in scope. */
export const FrameworkProgress = Type.Object({
  controls: counts('compliant'),
  policies: counts('published'),
  evidence: counts('uploaded'),
  tests: counts('passing'),
});

export const Framework = Type.Object({
  frameworkId: Type.String(),
  frameworkName: Type.String(),
  entities: Type.Array(Entity),
  nextAuditDate: NullableEpochMs,
  complianceProgress: FrameworkProgress,
  addedBy: Type.Optional(PersonStamp),
  addedOn: Type.Optional(EpochMs),
  lastModifiedBy: Type.Optional(PersonStamp),
  modifiedOn: Type.Optional(NullableEpochMs),
  tscSelections: Type.Optional(Type.Array(Type.String())),
});

export type FrameworkProgress = Static<typeof FrameworkProgress>;
export type Framework = Static<typeof Framework>;
