// PLACEHOLDER (owned by program-kinds, branch h-program-kinds): the tests entry of a program
// document. program-core's skeleton only fixes the name and the key; program-kinds replaces this
// file with the full schema.
import { Type, type Static } from 'typebox';
import { RecordKey } from '../program/fields.ts';

export const ProgramTest = Type.Object({ key: RecordKey }, { additionalProperties: false });
export type ProgramTest = Static<typeof ProgramTest>;
