// Long work that must run on the event loop gives the loop a turn now and then, so that /healthz,
// heartbeats and other requests are answered meanwhile (issue 36): a program plan's or apply's
// transaction, an import's batches, bulk inserts, reads of many chunks. On SQLite every statement
// runs synchronously and a transaction is one chain of promises, so without a turn nothing else
// runs until it ends. Other requests' writes still wait for the transaction (the writer connection
// is lent to one transaction at a time: storage/db/sqlite-connections.ts), so a turn never shows
// them uncommitted rows; their reads run beside it on the reader connection.
//
// Why 5 ms: a request needs several turns of the loop (its body, its handler, each statement's
// promise, its answer), and each waits for the stretch of work in front of it. With 20 ms
// stretches an import's neighbours' reads took 60-120 ms at p99 (docs/benchmarks.md, "Where all
// six stand"); the goal is twice their quiet p99 plus 20 ms. A turn is a setImmediate, a few
// microseconds when nothing else waits (200 a second of work); what other requests do during
// the turn delays the work by as much, which is the point.
import { setImmediate } from 'node:timers/promises';

/** The longest the loop is held between turns by work that calls shareTheLoop. */
export const SLICE_MS = 5;

let since = performance.now();

/** Lets the event loop take a turn when SLICE_MS have passed since the last one given here. */
export async function shareTheLoop(): Promise<void> {
  if (performance.now() - since < SLICE_MS) return;
  await setImmediate();
  since = performance.now();
}
