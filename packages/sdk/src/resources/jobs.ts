// GET /v1/jobs/{jobId} (an extension): bulk work the service accepted with 202, and the loop that
// follows such a job to its end for the methods that can be answered with one (vulnerabilities.import).
import type { GetJobResponse } from '../generated/api.ts';
import { apiErrorFromJob, TimeoutError } from '../errors.ts';
import { retryAfterMs } from '../transport/backoff.ts';
import { sleep } from '../transport/timing.ts';
import { send, withResponse, type ClientContext, type RequestOptions, type WithResponse } from './operation.ts';

export type Job = GetJobResponse['data'];
/** How far a running job has got (an extension of the job): `written` of `total` while it writes. */
export type JobProgress = NonNullable<Job['progress']>;

export interface JobFollowOptions {
  /** aborts the wait (the job itself runs on at the service) */
  signal?: AbortSignal;
  /** how long to follow a job before giving up with a TimeoutError (default 30 minutes); the job runs on */
  jobTimeoutMs?: number;
  /** the first wait between looks (default 250 ms); it grows by half each look, up to 5 s, unless the service sends Retry-After */
  pollIntervalMs?: number;
}

/** How long a job is followed unless told otherwise. */
export const DEFAULT_JOB_TIMEOUT_MS = 30 * 60_000;
const MAX_POLL_MS = 5000;

export class Jobs {
  readonly #ctx: ClientContext;
  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
  }

  /** The job as it is now: `status`, its times, and `result` or `error` once it has ended. */
  retrieve(jobId: string, options?: RequestOptions) {
    if (typeof jobId !== 'string' || jobId === '') throw new TypeError('retrieve needs a job ID');
    return send(this.#ctx, 'getJob', { params: { jobId }, options });
  }
}

/**
 * Follows an accepted job until it ends: its result as the synchronous answer's body (`{ data,
 * meta }`), or the synchronous answer's error thrown (the same class and code). `onStatus` hears
 * each status seen and `onProgress` each new progress (the CLI's progress line).
 */
export async function followJob<T>(
  ctx: ClientContext,
  accepted: WithResponse<{ data: Job; meta: { requestId: string } }>,
  options: JobFollowOptions &
    RequestOptions & { onStatus?: (status: Job['status']) => void; onProgress?: (progress: JobProgress, job: Job) => void } = {},
): Promise<WithResponse<{ data: T; meta: { requestId: string } }>> {
  const jobs = new Jobs(ctx);
  const timeoutMs = options.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  let interval = options.pollIntervalMs ?? 250;
  let seen = accepted; // a replay of a finished job has ended already
  let progress = '';
  const heard = (job: Job) => {
    const now = job.progress === undefined ? '' : JSON.stringify(job.progress);
    if (job.progress !== undefined && now !== progress) options.onProgress?.(job.progress, job);
    progress = now;
  };
  heard(seen.data);
  options.onStatus?.(seen.data.status);
  while (seen.data.status !== 'succeeded' && seen.data.status !== 'failed') {
    const wait = retryAfterMs(seen.response.headers) ?? interval;
    if (Date.now() + wait > deadline) {
      const err = new TimeoutError(timeoutMs);
      err.message = `the job ${seen.data.id} did not end within ${timeoutMs} ms; it runs on: follow it with jobs.retrieve()`;
      throw err;
    }
    await sleep(wait, options.signal);
    interval = Math.min(MAX_POLL_MS, Math.ceil(interval * 1.5));
    const before = seen.data.status;
    seen = await jobs.retrieve(seen.data.id, { signal: options.signal, timeoutMs: options.timeoutMs, maxRetries: options.maxRetries });
    heard(seen.data); // before its status: an ended job's last progress comes before `succeeded`
    if (seen.data.status !== before) options.onStatus?.(seen.data.status);
  }
  const job = seen.data;
  if (job.status === 'failed')
    throw apiErrorFromJob(
      job.error ?? { code: 'internal_error', message: 'The job failed.', details: [] },
      seen.response.headers,
      seen.meta.requestId,
    );
  return withResponse({ data: job.result as T, meta: seen.meta }, seen.response);
}
