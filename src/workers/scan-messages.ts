// What crosses the message port of one scanner file parsed in a worker thread (issue 36: the
// import's parse off the event loop). The main thread's side is scan-in-pool.ts, the thread's
// scan-parse.ts. The main thread feeds the file a chunk at a time as the thread asks for it, and
// the thread sends the findings back in batches, at most SCAN_BATCHES_AHEAD ahead of what the
// main thread has taken: both ends hold a bounded part of the file, whatever its size.
import type { ScannedFinding, ScanSummary } from '../domain/vulnerabilities/scanned-finding.ts';
import type { TaskError } from './task-messages.ts';

/** Findings one message carries (about 0.3 MB of JSON for SARIF results with a resource each). */
export const SCAN_BATCH_FINDINGS = 256;
/** Batches the thread may send before the main thread has begun to take the first of them. */
export const SCAN_BATCHES_AHEAD = 2;

/** To the thread. */
export type ToScanThread =
  | { type: 'chunk'; chunk: Uint8Array | string }
  | { type: 'end' }
  /** a batch taken: the thread may send one more */
  | { type: 'more' }
  /** the import stopped early (it failed, or its reader stopped): the thread drops the file */
  | { type: 'cancel' };

/** From the thread. */
export type FromScanThread =
  | { type: 'need' }
  /**
   * Findings in the order read, as JSON text (V8 parses it into less heap than the structured
   * clone makes of the same objects: program-document.ts), with the file's summary as it stood
   * when they were read: a batch never spans a change of the scope the file names.
   */
  | { type: 'findings'; json: string; summary: ScanSummary }
  | { type: 'end'; summary: ScanSummary }
  | { type: 'failed'; error: TaskError };

export type ScanBatch = ScannedFinding[];
