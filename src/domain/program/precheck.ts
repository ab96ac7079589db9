// The checks of a program document that need no database, run where the document was parsed (a
// worker thread, src/workers/program-document.ts) rather than in the pipeline's transaction
// (issue 36): the schema of every entry, the rules a schema cannot say (checkDocument) and the
// kinds' digests (settled-kinds.ts). Measured on a 7.9 MiB YAML plan, they were half a second of
// the event loop, a quarter of it inside the write lock. Their answers are handed to the verbs
// (ProgramInput.checked), which throw them at the same points as the checks they replace, so the
// answers and their order are the same: scopes, then the outline, then the organization and its
// plan, then the entries.
import { ServiceError, type FieldIssue } from '../../shared/errors.ts';
import { PROGRAM_KIND_NAMES } from '../kinds/kind.ts';
import { checkDocument } from './check-document.ts';
import { digestKinds, type KindDigests } from './settled-kinds.ts';
import { schemaIssues } from './validate.ts';

/** What the checks without the database found (structured-clonable: it crosses from a worker thread). */
export interface DocumentCheck {
  /** the outline's problems (version, kinds, each a list): answered before any transaction */
  outline: FieldIssue[];
  /** the entries' problems (schema, repeated keys, each kind's own checks): answered where the pipeline checks entries */
  entries: FieldIssue[];
  digests: KindDigests;
}

const ALL_KINDS = new Set<string>(PROGRAM_KIND_NAMES);

/**
 * Checks every entry, settled kinds too: their entries are those of an apply that passed the same
 * checks (a digest covers the service version), so they add no problem and the answer is the
 * pipeline's own.
 */
export function precheckDocument(document: unknown, prune: boolean): DocumentCheck {
  const outline = schemaIssues(document, ALL_KINDS);
  // refused at the outline: no apply, so no digest
  if (outline.length > 0) return { outline, entries: [], digests: new Map() };
  const digests = digestKinds(document, prune);
  try {
    checkDocument(document);
    return { outline, entries: [], digests };
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'validation_failed')
      return { outline, entries: error.details as FieldIssue[], digests };
    throw error;
  }
}
