// A risk of the program's register, as a program document names it (controls, policies, evidence
// and tests reference risks by key).
import { Type, type Static } from 'typebox';
import { Name, RecordKey } from '../kinds/fields.ts';

export const ProgramRisk = Type.Object({ key: RecordKey, name: Name() }, { additionalProperties: false });
export type ProgramRisk = Static<typeof ProgramRisk>;
