// An entity (a business unit, a product, a legal entity) as a program document names it.
import { Type, type Static } from 'typebox';
import { Name, RecordKey } from '../kinds/fields.ts';

export const ProgramEntity = Type.Object({ key: RecordKey, name: Name() }, { additionalProperties: false });
export type ProgramEntity = Static<typeof ProgramEntity>;
