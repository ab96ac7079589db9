// The checks of a program document that need no database, run where the document was parsed (a
// worker thread, src/workers/program-document.ts) rather than in the pipeline's transaction
// (issue 36): the schema of every entry, the rules a schema cannot say (checkDocument) and the
// kinds' digests (settled-kinds.ts). Measured on a 7.9 MiB YAML plan, they were half a second of
// the event loop, a quarter of it inside the write lock. Their answers are handed to the verbs
// (ProgramInput.checked), which throw them at the same points as the checks they replace, so the
// answers and their order are the same: scopes, then the outline, then the organization and its
// plan, then the entries.
import type { Hash } from 'node:crypto';
import type { FieldIssue } from '../../shared/errors.ts';
import { PROGRAM_KIND_NAMES, type KeyedEntry, type ProgramKindName } from '../kinds/kind.ts';
import { entryDigestText, kindHash, type KindDigests } from './settled-kinds.ts';
import { IssueList, SchemaIssues, schemaIssues } from './validate.ts';
import { programKind } from './registry.ts';

/** What the checks without the database found (structured-clonable: it crosses from a worker thread). */
export interface DocumentCheck {
  /** the outline's problems (version, kinds, each a list): answered before any transaction */
  outline: FieldIssue[];
  /** the entries' problems (schema, repeated keys, each kind's own checks): answered where the pipeline checks entries */
  entries: FieldIssue[];
  digests: KindDigests;
}

const ALL_KINDS = new Set<string>(PROGRAM_KIND_NAMES);
export const isKindName = (name: string): name is ProgramKindName => ALL_KINDS.has(name);

/**
 * The checks of precheckDocument made one entry at a time, in the document's order, so a reader
 * that parses a document an entry at a time (src/workers/program-document.ts) never holds all of
 * it (issue 36, goal (d)). The answers are those of the whole document's checks: the outline's
 * (schemaIssues of the outline), the kinds' digests (digestKinds), then the entries' problems
 * (checkDocument: the schema's, else the repeated keys and each kind's own checks).
 */
export class DocumentChecker {
  readonly #prune: boolean;
  #outline: FieldIssue[] = [];
  readonly #schema = new SchemaIssues();
  readonly #hashes = new Map<ProgramKindName, Hash | undefined>();
  readonly #checks = new IssueList();
  readonly #seen = new Map<ProgramKindName, Map<string, number>>();

  constructor(prune: boolean) {
    this.#prune = prune;
  }

  /** The document without its entries: each list holds its items, or holes in their places. */
  outline(document: unknown): void {
    this.#outline = schemaIssues(document, ALL_KINDS);
    if (this.#outline.length > 0) return;
    this.#schema.outline(document);
    for (const name of PROGRAM_KIND_NAMES)
      if (Array.isArray((document as Record<string, unknown>)[name])) this.#hashes.set(name, kindHash(name, this.#prune));
  }

  /** The entry at `index` of the kind's list, the lists in the document's order. */
  entry(name: ProgramKindName, index: number, entry: unknown): void {
    if (this.#outline.length > 0) return;
    const hash = this.#hashes.get(name);
    try {
      hash?.update(entryDigestText(entry));
    } catch {
      this.#hashes.set(name, undefined); // not plain data (the schema check says why): no digest, the full path
    }
    // after a problem of the schema, the other checks are not made (checkDocument's order)
    if (!this.#schema.entry(name, index, entry) || this.#schema.failed) return;
    const kind = programKind(name)!;
    const keyed = entry as KeyedEntry;
    let seen = this.#seen.get(name);
    if (!seen) this.#seen.set(name, (seen = new Map()));
    const first = seen.get(keyed.key);
    if (first !== undefined) this.#checks.add(`/${name}/${index}/key`, `repeats the key "${keyed.key}" of /${name}/${first}`);
    else seen.set(keyed.key, index);
    kind.check?.(keyed, `/${name}/${index}`, this.#checks.issues);
  }

  finish(): DocumentCheck {
    // refused at the outline: no apply, so no digest
    if (this.#outline.length > 0) return { outline: this.#outline, entries: [], digests: new Map() };
    const digests = new Map<ProgramKindName, string>();
    for (const [name, hash] of this.#hashes) if (hash) digests.set(name, hash.digest('base64url'));
    return { outline: [], entries: this.#schema.failed ? this.#schema.issues() : this.#checks.issues, digests };
  }
}

/**
 * Checks every entry, settled kinds too: their entries are those of an apply that passed the same
 * checks (a digest covers the service version), so they add no problem and the answer is the
 * pipeline's own.
 */
export function precheckDocument(document: unknown, prune: boolean): DocumentCheck {
  const checker = new DocumentChecker(prune);
  checker.outline(document);
  if (document !== null && typeof document === 'object' && !Array.isArray(document))
    for (const [name, entries] of Object.entries(document))
      if (isKindName(name) && Array.isArray(entries))
        entries.forEach((entry, i) => {
          checker.entry(name, i, entry);
        });
  return checker.finish();
}
