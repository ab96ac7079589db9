// The time scheduler every node runs (TIME_SCHEDULER=on): it finds the organizations with work due
// now (repositories/service/time-due.ts, one probe of each partial index of migration 0016), does each
// one's work in a transaction that claims the organization (due.ts, processDueOrganization), and
// otherwise sleeps until the earliest due time it knows, or TIME_POLL_MS at most (a due time a
// write of another node set meanwhile is found by then). Workers of several nodes race freely:
// the claim is the organization's row, taken with SKIP LOCKED on PostgreSQL, so one worker does an
// organization's batch while the others skip it; the statuses are re-read under the claim, so
// nothing is done twice; and a node that dies mid-batch loses its connection, its transaction is
// rolled back and the row freed at once, for the next worker that looks (within TIME_POLL_MS).
import { listDueOrganizations, nextDueAt } from '../../storage/db/repositories/service/time-due.ts';
import { processDueOrganization, type DueResult, type TimeContext } from './due.ts';
import { WakeableSleep } from '../wakeable-sleep.ts';

/** Organizations looked at per round; a full round is followed by another at once. */
const ORGS_PER_ROUND = 100;
/** An organization another worker (or a write) held: looked at again this soon. */
const BUSY_RETRY_MS = 20;

export interface TimeSettings {
  /** TIME_POLL_MS: the longest sleep between looks */
  pollMs: number;
  /** TIME_BATCH_SIZE: records of each kind one transaction moves at most */
  batchSize: number;
}

export interface TimeWorkerOptions {
  ctx: TimeContext;
  settings: TimeSettings;
  /** a look or a batch the database refused; reported, then tried again at the next poll */
  onError?: (err: Error) => void;
  /** each batch done, with the time it was done (metrics, tests and the benchmark watch them) */
  onBatch?: (organizationId: string, result: DueResult, at: number) => void;
}

export class TimeWorker {
  private readonly ctx: TimeContext;
  private readonly settings: TimeSettings;
  private readonly onError: (err: Error) => void;
  private readonly onBatch: TimeWorkerOptions['onBatch'];
  private stopping = false;
  private running: Promise<void> | undefined;
  private readonly pause = new WakeableSleep();

  constructor(options: TimeWorkerOptions) {
    this.ctx = options.ctx;
    this.settings = options.settings;
    this.onError = options.onError ?? (() => {});
    this.onBatch = options.onBatch;
  }

  start(): void {
    if (this.running) return;
    this.running = this.loop();
  }

  /** Looks for due work now (a test that moved its clock, a write that set a due time). */
  poke(): void {
    this.pause.wake();
  }

  /** Stops looking; a batch in progress finishes (it is one short transaction). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.poke();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let wait: number;
      try {
        wait = await this.round();
      } catch (err) {
        this.onError(err as Error);
        wait = this.settings.pollMs;
      }
      if (this.stopping) break;
      if (wait > 0) await this.pause.sleep(wait);
    }
  }

  /** One look: does what is due, and returns how long to sleep before the next (0: look again at once). */
  private async round(): Promise<number> {
    const db = this.ctx.db.kysely;
    const orgs = await listDueOrganizations(db, this.ctx.now(), ORGS_PER_ROUND);
    let busy = false;
    let more = orgs.length === ORGS_PER_ROUND;
    for (const org of orgs) {
      if (this.stopping) return 0;
      const result = await processDueOrganization(this.ctx, org, this.settings.batchSize);
      if (!result.claimed) busy = true;
      if (result.more) more = true;
      if (result.evidence + result.policies > 0) this.onBatch?.(org, result, this.ctx.now());
    }
    if (more) return 0;
    if (busy) return BUSY_RETRY_MS;
    const next = await nextDueAt(db);
    if (next === undefined) return this.settings.pollMs;
    const untilDue = next - this.ctx.now();
    // due already (a record moved meanwhile, or a clock moved by a test): soon, without spinning
    return untilDue > 0 ? Math.min(this.settings.pollMs, untilDue) : BUSY_RETRY_MS;
  }
}
