// The transactions of a large import, one slice at a time (issue 36). A small file is imported in
// one transaction; for a job's file or a synchronous one above ONE_TRANSACTION_MAX_BYTES
// (./import.ts), one transaction for all of it held SQLite's one writer for the whole import: every
// other organization's writes waited (a 20,000-finding job: 14 s, none of another tenant's writes
// in between; a 10,000-finding synchronous import: 1.4 s of its 1.6 s). Such an import first
// checks its whole file without writing (ImportRun's dry run: the parse, and each batch against
// the stored findings), then writes in slices of about SLICE_MS, each its own transaction under
// the organization's lock, committed before the next begins; other writers take their turn between
// slices. A slice's failure rolls back that slice; the ones before it stay, and a re-run (the job's,
// or a client's retry with its key) converges on the file's state, the import being a diff.
// On SQLite a slice goes on up to SLICE_ALONE_MS while no other write waits for the one writer.
import type { ControlledTransaction, Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';

/**
 * How long one slice may hold the transaction before it commits at the next batch's end. A write of
 * another organization that comes meanwhile waits for the rest of the slice, its batch and its
 * COMMIT: with 200 ms (and SLICE_ALONE_MS at 2 s) such writes waited up to 1.05 s at p99 during a
 * 100,000-result job once SQLite's writer ran in its thread; with 100 ms and 500 ms, 702 ms, the
 * job as fast (63.0 and 63.2 s; docs/benchmarks.md, "The writer in its own thread").
 */
export const SLICE_MS = 100;
/**
 * How long a slice may hold on while no other write waits for SQLite's one writer (Db.writersWaiting):
 * when each commit also ran SQLite's checkpoint on the event loop, a slice of SLICE_MS made a
 * 100,000-finding job spend a third of its time committing (docs/benchmarks.md, "Scanner imports").
 * Checkpoints and then the writer itself have since moved to threads of their own
 * (storage/db/sqlite-checkpoints.ts, sqlite-writer.ts); a longer hold now only makes the COMMIT a
 * write that comes meanwhile waits for longer (the pages of the whole slice written to the WAL).
 */
export const SLICE_ALONE_MS = 500;

export class ImportSlices {
  private current: ControlledTransaction<Database> | undefined;
  private startedAt = 0;
  private readonly db: Kysely<Database>;
  private readonly sliceMs: number;
  private readonly aloneMs: number;
  /** how many other writes wait for the writer (SQLite); without it, every slice lasts sliceMs */
  private readonly writersWaiting: (() => number) | undefined;
  /** after each commit but the last, with whether the slice changed anything: its changes announced (caches of other nodes) */
  private readonly onCommitted: (changed: boolean) => Promise<void>;
  /** SQLite: the WAL copied before the next slice begins, so that it starts again (Db.walCaughtUp) */
  private readonly walCaughtUp: (() => Promise<void>) | undefined;

  constructor(
    db: Kysely<Database>,
    onCommitted: (changed: boolean) => Promise<void>,
    {
      writersWaiting,
      walCaughtUp,
      sliceMs = SLICE_MS,
      aloneMs = SLICE_ALONE_MS,
    }: { writersWaiting?: () => number; walCaughtUp?: () => Promise<void>; sliceMs?: number; aloneMs?: number } = {},
  ) {
    this.db = db;
    this.onCommitted = onCommitted;
    this.writersWaiting = writersWaiting;
    this.walCaughtUp = walCaughtUp;
    this.sliceMs = sliceMs;
    this.aloneMs = Math.max(aloneMs, sliceMs);
  }

  /** Begins the next slice's transaction. */
  async begin(): Promise<Kysely<Database>> {
    this.current = await this.db.startTransaction().execute();
    this.startedAt = performance.now();
    return this.current;
  }

  /**
   * Whether the slice has held its transaction long enough to commit now: SLICE_MS when another
   * write waits for it (or when that cannot be known: PostgreSQL), SLICE_ALONE_MS when none does.
   */
  get due(): boolean {
    const held = performance.now() - this.startedAt;
    if (held < this.sliceMs) return false;
    return this.writersWaiting === undefined || held >= this.aloneMs || this.writersWaiting() > 0;
  }

  /** Commits the slice (`changed`: whether it wrote anything) and begins the next one. */
  async next(changed: boolean): Promise<Kysely<Database>> {
    await this.commit();
    await this.onCommitted(changed);
    // Other writes take their turn meanwhile (the writer is free between two slices).
    await this.walCaughtUp?.();
    return this.begin();
  }

  /** Commits the last slice, after `lastly` has written in it (a synchronous import's key bound with its answer). */
  async commit(lastly?: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
    const trx = this.current;
    this.current = undefined;
    if (!trx) return;
    if (lastly) {
      try {
        await lastly(trx);
      } catch (err) {
        await trx.rollback().execute();
        throw err;
      }
    }
    await trx.commit().execute();
  }

  async rollback(): Promise<void> {
    const trx = this.current;
    this.current = undefined;
    await trx?.rollback().execute();
  }
}
