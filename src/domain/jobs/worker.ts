// The job worker every node runs (docs/decisions/program-writes.md, "Jobs"): it leases queued jobs fairly across
// organizations (repositories/service/jobs.ts, claimJobs), runs at most JOB_CONCURRENCY at once, renews
// each lease while its job runs (a third of the lease, WRITE_LEASE_MS, at a time), and looks
// again every JOB_POLL_MS while idle, at once when a slot frees or a request of this process
// queued a job (nudge.ts). A node that dies stops renewing: its job's lease runs out and any node
// claims it again; the import being a diff of the file against the stored findings, the re-run
// converges on the same state.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SystemContext } from '../context.ts';
import { claimJobs, failAbandonedJobs, releaseJob, renewJobLease, type JobRow } from '../../storage/db/repositories/service/jobs.ts';
import { errorObject, ServiceError } from '../../shared/errors.ts';
import { LOCAL_OWNER_PREFIX } from '../../storage/db/repositories/events/webhook-deliveries.ts';
import { onJobQueued } from './nudge.ts';
import { runJob, type JobEnding, type JobTools } from './run.ts';
import { WakeableSleep } from '../wakeable-sleep.ts';
import { claimLoop, settleWithin } from '../claim-loop.ts';

export interface JobSettings {
  /** JOB_CONCURRENCY */
  concurrency: number;
  /** JOB_POLL_MS */
  pollMs: number;
  /** how long a claim holds a job without renewal (WRITE_LEASE_MS) */
  leaseMs: number;
  /** JOB_MAX_ATTEMPTS */
  maxAttempts: number;
}

export interface JobWorkerOptions extends JobTools {
  ctx: SystemContext;
  settings: JobSettings;
  /** a claim the database refused, or a job that failed unexpectedly; reported, then tried again */
  onError?: (err: Error) => void;
  /** each job run to its end (or lost to another node), for logs and tests */
  onEnd?: (job: JobRow, ending: JobEnding) => void;
}

export class JobWorker {
  readonly owner: string;
  private readonly ctx: SystemContext;
  private readonly settings: JobSettings;
  private readonly tools: JobTools;
  private readonly onError: (err: Error) => void;
  private readonly onEnd: JobWorkerOptions['onEnd'];
  private readonly inFlight = new Map<string, Promise<void>>();
  private stopping = false;
  private running: Promise<void> | undefined;
  private readonly pause = new WakeableSleep();
  private unsubscribe: (() => void) | undefined;

  constructor(options: JobWorkerOptions) {
    this.ctx = options.ctx;
    this.settings = options.settings;
    // The door's lookups (app.ts gives the registries', src/formats/scanners/formats.ts and
    // src/formats/checks/formats.ts): the domain imports no format.
    this.tools = { scannerFormats: options.scannerFormats, checkFormats: options.checkFormats };
    this.owner = options.ctx.instance?.id ?? `${LOCAL_OWNER_PREFIX}${randomUUID()}`;
    this.onError = options.onError ?? (() => {});
    this.onEnd = options.onEnd;
  }

  start(): void {
    if (this.running) return;
    this.unsubscribe = onJobQueued(() => this.poke());
    this.running = this.loop();
  }

  /** Looks for queued jobs now. */
  poke(): void {
    this.pause.wake();
  }

  /**
   * Stops claiming, lets the jobs in flight finish for up to `graceMs`, then gives back the leases
   * of those still running (queued again for any node).
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.poke();
    await this.running;
    await settleWithin(this.inFlight.values(), graceMs);
    for (const id of this.inFlight.keys()) await releaseJob(this.ctx.db.kysely, id, this.owner).catch(() => {});
  }

  private loop(): Promise<void> {
    return claimLoop({
      stopping: () => this.stopping,
      free: () => this.settings.concurrency - this.inFlight.size,
      claim: async (limit) => {
        const now = this.ctx.now();
        await failAbandonedJobs(this.ctx.db.kysely, now, this.settings.maxAttempts, abandonedError(this.settings.maxAttempts));
        return claimJobs(this.ctx.db.kysely, this.ctx.db.dialect, {
          owner: this.owner,
          now,
          leaseUntil: now + this.settings.leaseMs,
          limit,
          maxAttempts: this.settings.maxAttempts,
        });
      },
      run: (row) => this.run(row),
      onError: (err) => this.onError(err),
      pause: this.pause,
      pauseMs: () => this.settings.pollMs,
    });
  }

  private run(row: JobRow): void {
    const renew = setInterval(
      () => {
        renewJobLease(this.ctx.db.kysely, row.id, this.owner, this.ctx.now() + this.settings.leaseMs).catch((err) => this.onError(err));
      },
      Math.max(10, Math.floor(this.settings.leaseMs / 3)),
    );
    const work = runJob(this.ctx, row, this.owner, this.tools, this.onError)
      .then((ending) => this.onEnd?.(row, ending))
      .catch(async (err) => {
        this.onError(err as Error);
        // queued again for any node after a moment's failure; if even that fails, the lease runs out
        await sleep(Math.min(this.settings.pollMs * 10, 5000));
        await releaseJob(this.ctx.db.kysely, row.id, this.owner).catch(() => {});
      })
      .finally(() => {
        clearInterval(renew);
        this.inFlight.delete(row.id);
        this.poke();
      });
    this.inFlight.set(row.id, work);
  }
}

/**
 * The error of a job whose every run stopped its node or stalled past its lease: likely the input
 * itself (a file that exhausts memory), so it is not handed to yet another node.
 */
const abandonedError = (runs: number) =>
  JSON.stringify(
    errorObject(
      new ServiceError(
        'internal_error',
        `The job was started ${runs} times and each run stopped before it ended (the node that ran it stopped or stalled past its lease); it is not tried again. Quote the job ID when reporting it.`,
      ),
    ),
  );
