// The shape of a job (issue 36, "Bulk work is a job, not a long request"): bulk work accepted with
// `202` and run by a JobWorker of any node. Defined once: it validates nothing (the service writes
// it) but types the answer, serializes it, and goes into the OpenAPI document and the SDK's types.
import { Type, type Static } from 'typebox';
import { ErrorObject } from '../../shared/errors.ts';
import { ImportResult } from '../vulnerabilities/import-schema.ts';
import { TestResultsImport } from '../tests/import-results-schema.ts';

export const JOB_KINDS = ['vulnerabilities.import', 'tests.importResults'] as const;
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A finished job stays readable this long, then GET answers 404 and the clean-up removes it. */
export const JOB_RETENTION_MS = 24 * 3600_000;

const Time = (description: string) => Type.String({ format: 'date-time', description });

const Count = (description: string) => Type.Integer({ minimum: 0, description });

/** What a running job has gone through, stored by its node every JOB_PROGRESS_MS (./progress.ts). */
export const JobProgress = Type.Object(
  {
    stage: Type.Enum(['checking', 'writing'], {
      description: '`checking`: the whole file read and checked, nothing written yet; then `writing`.',
    }),
    parsed: Count('Findings (distinct keys) read from the file so far.'),
    written: Count('Findings the writing stage has gone through so far (written, or found unchanged).'),
    total: Type.Union([Count('The file’s findings, known once it has been checked.'), Type.Null()]),
  },
  {
    description:
      'Extension: how far the job has got, for a progress bar (`written` of `total` while it writes). Stored every second or so while it runs, and kept once it has ended; absent before it first reports.',
  },
);

export type JobProgress = Static<typeof JobProgress>;

export const Job = Type.Object(
  {
    id: Type.String({ description: 'The job’s ID: follow it at `GET /v1/jobs/{id}` (the `Location` of the 202).' }),
    kind: Type.Enum([...JOB_KINDS], {
      description:
        'What the job does: `vulnerabilities.import` (POST /v1/vulnerabilities/imports) or `tests.importResults` (POST /v1/tests/results/imports).',
    }),
    status: Type.Enum([...JOB_STATUSES], {
      description: '`queued`, then `running`, then `succeeded` (with `result`) or `failed` (with `error`).',
    }),
    createdAt: Time('When the request was accepted.'),
    startedAt: Type.Union([Time('When a node last started running it.'), Type.Null()]),
    finishedAt: Type.Union([Time('When it ended; it is readable for 24 hours after.'), Type.Null()]),
    progress: Type.Optional(JobProgress),
    /** when succeeded: the object the synchronous request answers in `data` */
    result: Type.Optional(Type.Union([ImportResult, TestResultsImport])),
    /** when failed: the `error` object the synchronous request answers (code, message, details) */
    error: Type.Optional(ErrorObject),
  },
  {
    description:
      'A job: bulk work accepted with 202. When `succeeded` it has `result`, the object the synchronous request answers in `data`; when `failed`, `error`, the `error` object the synchronous request answers (code, message, details).',
  },
);

export type Job = Static<typeof Job>;
