// Which kinds a checked program document lists, and which of them the pipeline (pipeline.ts) must
// read and diff: the ones an earlier apply has not settled (settled-kinds.ts). Every phase after
// the validate phase works on this.
import type { KeyedEntry, ProgramKindName } from '../kinds/kind.ts';
import type { ProgramKind } from './registry.ts';
import { PROGRAM_KINDS } from './registry.ts';
import type { KindCounts } from './plan-schema.ts';
import type { ProgramDocument } from './document-schema.ts';
import { entriesIn } from './check-document.ts';

export interface DocumentKinds {
  /** the kinds the document lists, in dependency order (registry.ts) */
  present: ProgramKind[];
  /** the present kinds that are not settled: read, diffed and written */
  active: ProgramKind[];
  settled: ReadonlySet<ProgramKindName>;
  /** a present kind's entries in the document */
  entriesOf: (kind: ProgramKind) => KeyedEntry[];
}

export function documentKinds(doc: ProgramDocument, settled: ReadonlySet<ProgramKindName>): DocumentKinds {
  const entriesOf = (kind: ProgramKind) => entriesIn(doc)[kind.name]!;
  const present = PROGRAM_KINDS.filter((k) => entriesIn(doc)[k.name] !== undefined);
  // Settled kinds: unchanged, so neither read nor diffed (their references are still checked
  // against the kinds that are not).
  const active = present.filter((k) => !settled.has(k.name));
  return { present, active, settled, entriesOf };
}

/** The counts of a kind whose entries are all unchanged (a settled kind). */
export const unchangedCounts = (kinds: DocumentKinds, kind: ProgramKind): KindCounts => ({
  created: 0,
  updated: 0,
  deleted: 0,
  unchanged: kinds.entriesOf(kind).length,
});
