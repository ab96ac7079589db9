// Accepting bulk work as a job (issue 36): the request's Idempotency-Key is bound to the job, so a
// retry replays the same 202 with the same job, as it stands now (the client follows it to its
// end). The work itself runs later in a JobWorker (worker.ts).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { findJob, insertJob } from '../../storage/db/repositories/service/jobs.ts';
import type { Database } from '../../storage/db/schema.ts';
import type { Job, JobKind } from './schema.ts';
import { jobView } from './view.ts';
import { jobQueued } from './nudge.ts';

export async function acceptJob(
  ctx: Context,
  idempotency: IdempotencyInput,
  fingerprint: string,
  job: { kind: JobKind; input: object },
): Promise<Outcome<Job>> {
  const outcome = await runIdempotent<Job>(keyScopeOf(ctx, idempotency), [fingerprint], async (trx) => {
    const row = await insertJob(trx as Kysely<Database>, {
      id: `job_${randomUUID()}`,
      organization_id: ctx.actor.organizationId,
      kind: job.kind,
      status: 'queued',
      input: JSON.stringify(job.input),
      result: null,
      error: null,
      credential_id: ctx.actor.credentialId,
      created_at: ctx.now(),
    });
    return { kind: 'accepted', resource: jobView(row) };
  });
  if (!outcome.replayed) {
    jobQueued();
    return outcome;
  }
  return replayedAsNow(ctx, outcome);
}

/**
 * A replayed outcome; when it is an accepted job, the job as it is now (so a retry after it ended
 * shows its result). The job outlives the key: it ends after it was accepted, and is kept 24 hours
 * after that.
 */
export async function replayedAsNow<T>(ctx: Context, outcome: Outcome<T>): Promise<Outcome<T>> {
  if (!outcome.replayed || outcome.kind !== 'accepted') return outcome;
  const current = await findJob(ctx.db.kysely, ctx.actor.organizationId, (outcome.resource as Job).id, 0);
  return current ? { ...outcome, resource: jobView(current) as T } : outcome;
}
