// A job row as the API shows it (schema.ts): the result or error only once it has ended.
import type { JobRow } from '../../storage/db/repositories/service/jobs.ts';
import type { Job } from './schema.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function jobView(row: JobRow): Job {
  const job: Job = {
    id: row.id,
    kind: row.kind,
    status: row.status,
    createdAt: iso(row.created_at) as string,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
  if (row.progress !== null) job.progress = JSON.parse(row.progress);
  if (row.status === 'succeeded' && row.result !== null) job.result = JSON.parse(row.result);
  if (row.status === 'failed' && row.error !== null) job.error = JSON.parse(row.error);
  return job;
}
