// GET /v1/jobs/{id}: a job of the caller's organization, for 24 hours after it ended. Another
// organization's job, or one past its retention, is not found; reading it needs the read scope of
// the resource its kind writes (an import's: vulnerability:read).
import type { Context } from '../context.ts';
import type { Resource } from '../auth/scopes.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound } from '../../shared/errors.ts';
import { findJob } from '../../storage/db/repositories/service/jobs.ts';
import { JOB_RETENTION_MS, type Job, type JobKind } from './schema.ts';
import { jobView } from './view.ts';

/** The resource whose scopes govern a job of each kind. */
export const JOB_RESOURCE: Record<JobKind, Resource> = { 'vulnerabilities.import': 'vulnerability', 'tests.importResults': 'test' };

/** Refuses an actor that may read none of the jobs' resources (the refusal of the first one). */
function authorizeAnyJob(actor: Context['actor']): void {
  const resources = [...new Set(Object.values(JOB_RESOURCE))];
  for (const [i, resource] of resources.entries()) {
    try {
      authorize(actor, resource, 'read');
      return;
    } catch (err) {
      if (i === resources.length - 1) throw err;
    }
  }
}

export async function getJob({ ctx, input }: { ctx: Context; input: { id: string } }): Promise<Job> {
  // Checked before the look-up, like every read (a plan without any job's resource is refused, not
  // 404); the job's own resource is checked once it is found.
  authorizeAnyJob(ctx.actor);
  const row = await findJob(ctx.db.kysely, ctx.actor.organizationId, input.id, ctx.now() - JOB_RETENTION_MS);
  if (!row) throw notFound('The job');
  authorize(ctx.actor, JOB_RESOURCE[row.kind], 'read');
  return jobView(row);
}
