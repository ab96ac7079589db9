// The kinds of a program document, by their document property. Their dependency order (a kind's
// entries reference only kinds listed before it) is written once, in PROGRAM_KIND_NAMES
// (src/domain/kinds/kind.ts); the pipeline reads, diffs and writes them in that order and deletes
// in the reverse one. One line per kind, so the branches that add kinds merge cleanly.
import { PROGRAM_KIND_NAMES, type KeyedEntry, type ProgramKind as KindContract, type ProgramKindName } from '../kinds/kind.ts';
import type { RecordedKindEvents } from '../events/kind-events.ts';
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

/** A kind as the engine runs it: the contract, with the events the engine records. */
export type ProgramKind<E extends KeyedEntry = KeyedEntry> = KindContract<E, RecordedKindEvents>;

const KINDS = {
  entities: entitiesKind,
  people: peopleKind,
  risks: risksKind,
  customFields: customFieldsKind,
  frameworks: frameworksKind,
  controls: controlsKind,
  policies: policiesKind,
  evidence: evidenceKind,
  tests: testsKind,
  vulnerabilities: vulnerabilitiesKind,
} satisfies Record<ProgramKindName, { name: ProgramKindName }>;

export const PROGRAM_KINDS: readonly ProgramKind[] = PROGRAM_KIND_NAMES.map((name) => KINDS[name] as unknown as ProgramKind);

export function programKind(name: ProgramKindName): ProgramKind | undefined {
  return PROGRAM_KINDS.find((k) => k.name === name);
}
