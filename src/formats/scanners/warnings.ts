// A file's warnings (docs/scanner-formats.md, "Warnings"): what a reader took with a gap, or left out
// with a word, kept in the file's summary one entry per kind, counted, so that a file with thousands
// of the same gap says so once and the import's answer stays small.
import { MAX_WARNINGS, type ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { pointer, type PathPart } from './json-stream.ts';

/** Counts `message` at `path` in the summary's warnings (the first place is kept; a kind past the bound is dropped). */
export function warn(summary: ScanSummary, path: readonly PathPart[], message: string, count = 1): void {
  const warnings = (summary.warnings ??= []);
  const same = warnings.find((w) => w.message === message);
  if (same) same.count += count;
  else if (warnings.length < MAX_WARNINGS) warnings.push({ at: pointer(path), count, message });
}
