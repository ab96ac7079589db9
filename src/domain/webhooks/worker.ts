// The delivery worker every node runs (WEBHOOK_DELIVERY=on): it leases due deliveries, fairly
// across organizations and endpoints (repositories/events/webhook-deliveries.ts, claimDueDeliveries: at
// most WEBHOOK_ORG_CONCURRENCY and WEBHOOK_ENDPOINT_CONCURRENCY in flight), sends up to WEBHOOK_CONCURRENCY at
// once, and looks again every WEBHOOK_POLL_MS while idle, at once when a slot frees, at once when
// poked (a commit of any node announced deliveries: storage/db/delivery-announcements.ts, wired in
// app.ts), and at once (then a few times within ~100 ms, since the nudge comes before the commit)
// when a transaction of this process enqueued deliveries. The lease's owner is the server
// instance (its heartbeat, server-instance.ts), so a node that dies frees its deliveries within
// the liveness window rather than the whole lease; without an instance (an app built by a test)
// the lease alone bounds it.
import { randomUUID } from 'node:crypto';
import {
  claimDueDeliveries,
  LOCAL_OWNER_PREFIX,
  releaseLeases,
  type DeliveryRow,
} from '../../storage/db/repositories/events/webhook-deliveries.ts';
import type { ServerInstance } from '../instances/server-instance.ts';
import { attemptDelivery, type AttemptResult, type DeliveryContext } from './deliver.ts';
import { onDeliveriesEnqueued } from './nudge.ts';
import { WakeableSleep } from '../wakeable-sleep.ts';
import { claimLoop, settleWithin } from '../claim-loop.ts';

/** Looks after a nudge that found nothing yet: the enqueuing transaction may still be committing. */
const NUDGE_RECHECKS_MS = [5, 20, 50, 100];
/** A lease outlasts the attempt it covers by at least this much. */
const LEASE_MARGIN_MS = 5000;

export interface WorkerOptions {
  ctx: DeliveryContext;
  instance?: ServerInstance;
  /** a claim or an outcome the database refused; reported, then tried again at the next poll */
  onError?: (err: Error) => void;
  /** each finished attempt, with the time it started (metrics: outcomes and lag; tests and benchmarks watch them) */
  onAttempt?: (delivery: DeliveryRow, result: AttemptResult, startedAt: number) => void;
}

export class DeliveryWorker {
  readonly owner: string;
  private readonly ctx: DeliveryContext;
  private readonly instance: ServerInstance | undefined;
  private readonly onError: (err: Error) => void;
  private readonly onAttempt: WorkerOptions['onAttempt'];
  private readonly inFlight = new Map<string, Promise<void>>();
  private stopping = false;
  private running: Promise<void> | undefined;
  private readonly pause = new WakeableSleep();
  private rechecks: number[] = [];
  private unsubscribe: (() => void) | undefined;

  constructor(options: WorkerOptions) {
    this.ctx = options.ctx;
    this.instance = options.instance;
    this.owner = options.instance?.id ?? `${LOCAL_OWNER_PREFIX}${randomUUID()}`;
    this.onError = options.onError ?? (() => {});
    this.onAttempt = options.onAttempt;
  }

  start(): void {
    if (this.running) return;
    this.unsubscribe = onDeliveriesEnqueued(() => {
      this.rechecks = [...NUDGE_RECHECKS_MS];
      this.pause.wake();
    });
    this.running = this.loop();
  }

  /** Looks for due deliveries now (a test that moved its clock). */
  poke(): void {
    this.pause.wake();
  }

  /**
   * Stops claiming at once, lets the attempts in flight finish for up to `graceMs`, then gives the
   * leases of those still running back (due at once for another node) and returns their count.
   */
  async stop(graceMs: number): Promise<{ released: number }> {
    this.stopping = true;
    this.unsubscribe?.();
    this.pause.wake();
    await this.running;
    await settleWithin(this.inFlight.values(), graceMs);
    const unfinished = [...this.inFlight.keys()];
    if (unfinished.length === 0) return { released: 0 };
    return { released: await releaseLeases(this.ctx.db.kysely, this.owner, unfinished) };
  }

  private loop(): Promise<void> {
    const { concurrency, pollMs } = this.ctx.webhooks;
    return claimLoop({
      stopping: () => this.stopping,
      free: () => concurrency - this.inFlight.size,
      claim: (limit) => this.claim(limit),
      run: (row) => this.run(row),
      onError: (err) => this.onError(err),
      pause: this.pause,
      pauseMs: (claimed) => (claimed > 0 ? pollMs : (this.rechecks.shift() ?? pollMs)),
    });
  }

  private claim(limit: number): Promise<DeliveryRow[]> {
    const now = this.ctx.now();
    const { leaseMs, timeoutMs, orgConcurrency, endpointConcurrency } = this.ctx.webhooks;
    return claimDueDeliveries(this.ctx.db.kysely, this.ctx.db.dialect, {
      owner: this.owner,
      now,
      leaseUntil: now + Math.max(leaseMs, timeoutMs + LEASE_MARGIN_MS),
      aliveSince: now - (this.instance?.livenessMs ?? 0),
      limit,
      orgConcurrency,
      endpointConcurrency,
    });
  }

  private run(row: DeliveryRow): void {
    const startedAt = this.ctx.now();
    const work = attemptDelivery(this.ctx, row, this.owner)
      .then((result) => this.onAttempt?.(row, result, startedAt))
      .catch((err) => this.onError(err as Error))
      .finally(() => {
        this.inFlight.delete(row.id);
        this.pause.wake();
      });
    this.inFlight.set(row.id, work);
  }
}
