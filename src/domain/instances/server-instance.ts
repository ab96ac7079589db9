// The running server process as the database knows it (docs/decisions/writes-and-uploads.md, "Abandoned claims"): a
// random instance ID, written on every idempotency claim and pending upload this process takes,
// and a heartbeat renewed three times per liveness window. When the process dies its heartbeat
// stops, and within one window every node treats its claims and uploads as abandoned; when it
// shuts down it deletes its row, which frees them at once. The write lease stays the outer bound
// for a process that is alive but stuck.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Db } from '../../storage/db/connect.ts';
import { releaseInstanceClaims } from '../../storage/db/repositories/service/idempotency.ts';
import { beat, deleteInstance, listInstancesOnHost } from '../../storage/db/repositories/service/server-instances.ts';

/** What the verbs see of the instance they run in. */
export interface ServerInstance {
  readonly id: string;
  /** an instance whose last heartbeat is older than this is gone */
  readonly livenessMs: number;
  /**
   * Runs `work` again with each heartbeat until it succeeds: a claim release or journal clean-up
   * the database refused (it was unreachable) must still happen while this process lives, or the
   * key would stay blocked until the lease ends.
   */
  retryLater(work: () => Promise<unknown>): void;
}

/** Releases that wait for the database, at most this many (beyond it, the lease frees them). */
const MAX_DEFERRED = 10_000;

export interface HeartbeatOptions {
  db: Db;
  now: () => number;
  livenessMs: number;
  /** a heartbeat that failed (the database is unreachable); reported, then retried */
  onError?: (err: Error) => void;
}

export class InstanceHeartbeat implements ServerInstance {
  readonly id = randomUUID();
  readonly livenessMs: number;
  private readonly db: Db;
  private readonly now: () => number;
  private readonly onError: (err: Error) => void;
  private readonly row: { id: string; host: string; pid: number; startedAt: number };
  private deferred: Array<() => Promise<unknown>> = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private beating: Promise<void> = Promise.resolve();

  constructor(options: HeartbeatOptions) {
    this.db = options.db;
    this.now = options.now;
    this.livenessMs = options.livenessMs;
    this.onError = options.onError ?? (() => {});
    this.row = { id: this.id, host: os.hostname(), pid: process.pid, startedAt: options.now() };
  }

  /**
   * Records the first heartbeat and starts the loop. On SQLite every process sharing the file runs
   * on this machine, so the instances recorded for this host whose process no longer exists died
   * (or were killed) without cleaning up: their claims are released now rather than after a
   * liveness window.
   */
  async start(): Promise<void> {
    if (this.db.dialect === 'sqlite') {
      for (const other of await listInstancesOnHost(this.db.kysely, this.row.host, this.id)) {
        // The same process ID as ours is a previous process's (a container's first process is
        // given the same ID at every start).
        if (other.pid !== process.pid && processExists(other.pid)) continue;
        await releaseInstanceClaims(this.db.kysely, other.id);
        await deleteInstance(this.db.kysely, other.id);
      }
    }
    await this.tick();
  }

  retryLater(work: () => Promise<unknown>): void {
    if (this.stopped) return;
    if (this.deferred.length >= MAX_DEFERRED) this.deferred.shift();
    this.deferred.push(work);
  }

  private tick(): Promise<void> {
    this.beating = (async () => {
      try {
        await beat(this.db.kysely, this.row, this.now());
        const pending = this.deferred;
        this.deferred = [];
        for (const [i, work] of pending.entries()) {
          try {
            await work();
          } catch {
            // still unreachable: keep this one and the rest for the next beat
            this.deferred.unshift(...pending.slice(i));
            break;
          }
        }
      } catch (err) {
        this.onError(err as Error);
      }
      if (!this.stopped) {
        this.timer = setTimeout(() => void this.tick(), Math.max(50, Math.floor(this.livenessMs / 3)));
        this.timer.unref();
      }
    })();
    return this.beating;
  }

  /**
   * Stops the heartbeat and frees what this process still holds: its in-progress claims (requests
   * that could not finish; their transactions, should they commit, find the claim gone and roll
   * back) and its row, which marks its pending uploads abandoned for the clean-up.
   */
  async stop(): Promise<{ releasedClaims: number }> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.beating;
    for (const work of this.deferred.splice(0)) await work().catch(() => {});
    const releasedClaims = await releaseInstanceClaims(this.db.kysely, this.id);
    await deleteInstance(this.db.kysely, this.id);
    return { releasedClaims };
  }
}

/** Whether a process with this ID exists on this machine (EPERM: it exists, owned by another user). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
