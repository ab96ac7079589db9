// A risk of the program's register, as a program document names it (controls, policies, evidence
// and tests reference risks by key): a named record (src/domain/kinds/named-kind.ts).
import { ProgramNamedRecord } from '../kinds/named-kind.ts';

export const ProgramRisk = ProgramNamedRecord;
export type ProgramRisk = ProgramNamedRecord;
