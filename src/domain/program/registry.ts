// The kinds of a program document, in dependency order: a kind's entries reference only kinds
// listed before it (risks, people and entities first; artifacts after controls). The pipeline
// reads, diffs and writes them in this order and deletes in the reverse one.
// One line per kind, so the branches that add kinds merge cleanly.
import type { ProgramKind, ProgramKindName } from './kind.ts';
import { entitiesKind } from '../entities/program-kind.ts';
import { peopleKind } from '../people/program-kind.ts';
import { risksKind } from '../risks/program-kind.ts';
import { customFieldsKind } from '../custom-fields/program-kind.ts';
import { frameworksKind } from '../frameworks/program-kind.ts';
import { controlsKind } from '../controls/program-kind.ts';
import { policiesKind } from '../policies/program-kind.ts';
import { evidenceKind } from '../evidence/program-kind.ts';
import { testsKind } from '../tests/program-kind.ts';
import { vulnerabilitiesKind } from '../vulnerabilities/program-kind.ts';

export const PROGRAM_KINDS: readonly ProgramKind[] = [
  entitiesKind,
  peopleKind,
  risksKind,
  customFieldsKind,
  frameworksKind,
  controlsKind,
  policiesKind,
  evidenceKind,
  testsKind,
  vulnerabilitiesKind,
] as unknown as readonly ProgramKind[];

export function programKind(name: ProgramKindName): ProgramKind | undefined {
  return PROGRAM_KINDS.find((k) => k.name === name);
}
