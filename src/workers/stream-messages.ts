// What crosses the message port of one file parsed in a worker thread as a stream (issue 36: an
// import's parse off the event loop): a scanner file (scan-in-pool.ts) or a checker's report
// (check-in-pool.ts). The main thread's side is stream-in-pool.ts, the thread's stream-parse.ts.
// The main thread feeds the file a chunk at a time as the thread asks for it, and the thread sends
// what the format's parser yields back in batches, at most STREAM_BATCHES_AHEAD ahead of what the
// main thread has taken: both ends hold a bounded part of the file, whatever its size.
import type { MessagePort } from 'node:worker_threads';
import type { TaskError } from './task-messages.ts';

/** Items one message carries (about 0.3 MB of JSON for SARIF results with a resource each). */
export const STREAM_BATCH_ITEMS = 256;
/** Batches the thread may send before the main thread has begun to take the first of them. */
export const STREAM_BATCHES_AHEAD = 2;

/** A stream's task input (tasks.ts): the format's name (the main thread looked it up: it is known), and the file's port. */
export interface StreamParseInput {
  format: string;
  /** transferred: chunks in, items out */
  port: MessagePort;
}

/** To the thread. */
export type ToParseThread =
  | { type: 'chunk'; chunk: Uint8Array | string }
  | { type: 'end' }
  /** a batch taken: the thread may send one more */
  | { type: 'more' }
  /** the import stopped early (it failed, or its reader stopped): the thread drops the file */
  | { type: 'cancel' };

/** From the thread. */
export type FromParseThread =
  | { type: 'need' }
  /**
   * Items in the order read, as JSON text (V8 parses it into less heap than the structured clone
   * makes of the same objects: program-document.ts), with the label the format gives them as they
   * are read (a scanner file's summary as it stood: a batch never spans a change of its label).
   */
  | { type: 'batch'; json: string; label: unknown }
  /** the parser's return value */
  | { type: 'end'; summary: unknown }
  | { type: 'failed'; error: TaskError };
