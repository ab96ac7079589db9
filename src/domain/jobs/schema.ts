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
