// The validate phase of the program pipeline (pipeline.ts): the schema, then the rules a schema
// cannot say. Its own file because precheck.ts runs the same checks where the document was parsed
// (a worker thread) and the pipeline runs them in its transaction: both import it from here.
import { IssueList, assertDocumentShape } from './validate.ts';
import { PROGRAM_KINDS } from './registry.ts';
import type { KeyedEntry, ProgramKindName } from '../kinds/kind.ts';
import type { ProgramDocument } from './document-schema.ts';

type Entries = Record<string, KeyedEntry[] | undefined>;
/** A checked document's entries by kind name (`version` aside). */
export const entriesIn = (doc: ProgramDocument) => doc as unknown as Entries;

/**
 * Schema, then the rules a schema cannot say: unique keys per kind, each kind's own checks. Throws
 * validation_failed. `settled`: kinds whose entries an earlier apply checked as they are (settled-kinds.ts).
 */
export function checkDocument(document: unknown, settled: ReadonlySet<ProgramKindName> = new Set()): ProgramDocument {
  assertDocumentShape(document, settled);
  const doc = document as ProgramDocument;
  const issues = new IssueList();
  for (const name of Object.keys(doc)) {
    if (name === 'version') continue;
    const kind = PROGRAM_KINDS.find((k) => k.name === name);
    if (!kind) {
      issues.add(`/${name}`, `this service cannot apply ${name} yet`);
      continue;
    }
    if (settled.has(kind.name)) continue;
    const entries = entriesIn(doc)[name] ?? [];
    const seen = new Map<string, number>();
    entries.forEach((entry, i) => {
      const first = seen.get(entry.key);
      if (first !== undefined) issues.add(`/${name}/${i}/key`, `repeats the key "${entry.key}" of /${name}/${first}`);
      else seen.set(entry.key, i);
      kind.check?.(entry, `/${name}/${i}`, issues.issues);
    });
  }
  issues.throwIfAny();
  return doc;
}
