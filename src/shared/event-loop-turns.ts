// Long work that must run on the event loop gives the loop a turn now and then, so that /healthz,
// heartbeats and other requests are answered meanwhile (issue 36): a program plan's or apply's
// transaction, bulk inserts, reads of many chunks. On SQLite every statement runs synchronously and
// a transaction is one chain of promises, so without a turn nothing else runs until it ends; other
// requests' statements still wait for the transaction (Kysely's SQLite driver lends its one
// connection to one transaction at a time), so a turn never shows them uncommitted rows.
//
// Cost: a turn is a setImmediate, taken only after SLICE_MS of work since the last one (about
// 50 turns a second of work, a few microseconds each when nothing else waits); what other requests
// do during the turn delays the work by as much.
import { setImmediate } from 'node:timers/promises';

/** The longest the loop is held between turns by work that calls shareTheLoop. */
export const SLICE_MS = 20;

let since = performance.now();

/** Lets the event loop take a turn when SLICE_MS have passed since the last one given here. */
export async function shareTheLoop(): Promise<void> {
  if (performance.now() - since < SLICE_MS) return;
  await setImmediate();
  since = performance.now();
}
