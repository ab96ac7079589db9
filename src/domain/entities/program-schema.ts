// An entity (a business unit, a product, a legal entity) as a program document names it: a named
// record (src/domain/kinds/named-kind.ts).
import { ProgramNamedRecord } from '../kinds/named-kind.ts';

export const ProgramEntity = ProgramNamedRecord;
export type ProgramEntity = ProgramNamedRecord;
