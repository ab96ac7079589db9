// What a plan (and an apply, which answers the plan it carried out) says: whether anything would
// change, counts per kind, each changed record with its changed fields, and the computed effects
// on controls' statuses and frameworks' progress.
import { Type, type Static } from 'typebox';
import { CONTROL_STATUSES } from '../controls/schema.ts';
import { FrameworkProgress } from '../frameworks/schema.ts';
import { PROGRAM_KIND_NAMES } from '../kinds/kind.ts';

export const KindCounts = Type.Object({
  created: Type.Integer({ minimum: 0 }),
  updated: Type.Integer({ minimum: 0 }),
  deleted: Type.Integer({ minimum: 0 }),
  unchanged: Type.Integer({ minimum: 0 }),
});

export const FieldChange = Type.Object({
  before: Type.Optional(Type.Unknown({ description: 'As the document writes it; absent when the field had no value.' })),
  after: Type.Optional(Type.Unknown({ description: 'Absent when the field loses its value.' })),
});

export const PlannedChange = Type.Object({
  kind: Type.Enum([...PROGRAM_KIND_NAMES]),
  key: Type.String(),
  id: Type.String({ description: 'The record’s ID (as the API shows it), existing or to be created.' }),
  action: Type.Enum(['create', 'update', 'delete']),
  fields: Type.Optional(
    Type.Record(Type.String(), FieldChange, { description: 'update: the fields that change, as the document names them.' }),
  ),
});

export const ControlEffect = Type.Object({
  controlId: Type.String(),
  key: Type.String(),
  before: Type.Enum([...CONTROL_STATUSES]),
  after: Type.Enum([...CONTROL_STATUSES]),
});

export const FrameworkEffect = Type.Object({
  frameworkId: Type.String(),
  key: Type.String(),
  before: FrameworkProgress,
  after: FrameworkProgress,
});

export const ProgramPlan = Type.Object({
  changed: Type.Boolean({ description: 'Whether an apply changes anything.' }),
  counts: Type.Record(Type.String(), KindCounts, { description: 'Per kind the document covers.' }),
  changes: Type.Array(PlannedChange, { description: 'Every record created, updated or deleted, in dependency order.' }),
  effects: Type.Object({
    controls: Type.Array(ControlEffect, { description: 'Existing controls whose computed status flips.' }),
    frameworks: Type.Array(FrameworkEffect, { description: 'Existing frameworks whose complianceProgress moves.' }),
  }),
});

export type KindCounts = Static<typeof KindCounts>;
export type PlannedChange = Static<typeof PlannedChange>;
export type ProgramPlan = Static<typeof ProgramPlan>;
