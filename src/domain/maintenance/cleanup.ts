// Periodic clean-up that keeps storage bounded: idempotency records past their window (24-hour
// responses, abandoned claims), rows of server instances long gone, blobs of uploads whose process
// died before recording them (also reaped more often on their own: reap-abandoned-uploads.ts), and
// (local disk) temporary files of interrupted writes, scanner files spooled by imports whose process
// died (older than temporaryAgeMs, which outlives any request), ended console sessions, usage counts
// older than the usage page shows (with a day's margin), and change events older than their
// retention (EVENT_RETENTION_DAYS) together with the webhook deliveries made that long ago and their
// attempts (a delivery holds no copy of its event, but its attempts keep receivers' answers, and
// nothing of an event may outlive it: issue 28), and jobs 24 hours after they ended, removed in bounded batches so no statement holds
// locks long. Every node runs it; the work is idempotent,
// so nodes running it at the same time only repeat deletions that are harmless.
import type { Db } from '../../storage/db/connect.ts';
import type { BlobStore } from '../../storage/blobs/store.ts';
import { deleteExpiredIdempotencyRecords } from '../../storage/db/repositories/service/idempotency.ts';
import { deleteSilentInstances } from '../../storage/db/repositories/service/server-instances.ts';
import { DEFAULT_CLAIM_LIVENESS_MS } from '../../config.ts';
import { reapAbandonedUploads } from './reap-abandoned-uploads.ts';
import { removeSpool, sweepSpool } from '../imports/spool.ts';
import { deleteFinishedJobsBefore, listOpenJobInputs } from '../../storage/db/repositories/service/jobs.ts';
import { JOB_RETENTION_MS } from '../jobs/schema.ts';
import type { ImportJobInput } from '../vulnerabilities/import.ts';
import { deleteExpiredSessions } from '../../storage/db/repositories/console/admin-sessions.ts';
import { deleteUsageBefore } from '../../storage/db/repositories/auth/credential-usage.ts';
import { USAGE_BUCKET_MS, USAGE_BUCKETS } from '../console/usage-recorder.ts';
import { deleteEventsBefore } from '../../storage/db/repositories/events/events.ts';
import { deleteDeliveriesBefore } from '../../storage/db/repositories/events/webhook-deliveries.ts';

/** Events kept when the caller names no retention (Config.events.retentionDays defaults to the same). */
export const DEFAULT_EVENT_RETENTION_DAYS = 30;
/** Events removed per statement, and statements per run: a backlog larger than that goes over the next runs. */
export const EVENT_DELETE_BATCH = 1000;
export const EVENT_DELETE_BATCHES_PER_RUN = 50;

export interface CleanupResult {
  idempotencyRecords: number;
  abandonedUploads: number;
  orphanBlobs: number;
  temporaryFiles: number;
  spooledFiles: number;
  consoleSessions: number;
  usageRows: number;
  events: number;
  webhookDeliveries: number;
  /** jobs removed 24 hours after they ended (JOB_RETENTION_MS) */
  jobs: number;
}

/** What the clean-up works on: the database, the blob store and the clock (a subset of SystemContext). */
export interface CleanupContext {
  db: Db;
  blobs: BlobStore;
  now: () => number;
}

export interface CleanupInput {
  /** temporary files older than this are from interrupted writes */
  temporaryAgeMs: number;
  /** console sessions idle this long have ended (default: never by idleness) */
  sessionIdleMs?: number;
  /** a server instance silent this long is gone, and its uploads abandoned (default DEFAULT_CLAIM_LIVENESS_MS) */
  claimLivenessMs?: number;
  /** events older than this many days are removed (default DEFAULT_EVENT_RETENTION_DAYS) */
  eventRetentionDays?: number;
}

export async function runCleanup({ ctx, input }: { ctx: CleanupContext; input: CleanupInput }): Promise<CleanupResult> {
  const { db, blobs, now } = ctx;
  const { temporaryAgeMs, sessionIdleMs, claimLivenessMs } = input;
  const result: CleanupResult = {
    idempotencyRecords: 0,
    abandonedUploads: 0,
    orphanBlobs: 0,
    temporaryFiles: 0,
    spooledFiles: 0,
    consoleSessions: 0,
    usageRows: 0,
    events: 0,
    webhookDeliveries: 0,
    jobs: 0,
  };
  result.idempotencyRecords = await deleteExpiredIdempotencyRecords(db.kysely, now());
  // Rows of instances silent for a whole lease: their claims are abandoned whether the row is there or not.
  await deleteSilentInstances(db.kysely, now() - temporaryAgeMs);
  const reaped = await reapAbandonedUploads({ ctx, input: { livenessMs: claimLivenessMs ?? DEFAULT_CLAIM_LIVENESS_MS } });
  result.abandonedUploads = reaped.abandonedUploads;
  result.orphanBlobs = reaped.orphanBlobs;
  result.temporaryFiles = (await blobs.sweepTemporary?.(temporaryAgeMs)) ?? 0;
  // a job's spool outlives any request: kept until the job ends, whatever its age
  const jobSpools = new Set((await listOpenJobInputs(db.kysely)).map((input) => spoolOfJob(input)));
  result.spooledFiles = await sweepSpool(blobs, now() - temporaryAgeMs, jobSpools);
  result.consoleSessions = await deleteExpiredSessions(db.kysely, now(), sessionIdleMs ?? Number.MAX_SAFE_INTEGER);
  result.usageRows = await deleteUsageBefore(db.kysely, now() - (USAGE_BUCKETS + 24) * USAGE_BUCKET_MS);
  const eventCutoff = now() - (input.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS) * 86_400_000;
  result.events = await inBatches((limit) => deleteEventsBefore(db.kysely, eventCutoff, limit));
  result.webhookDeliveries = await inBatches((limit) => deleteDeliveriesBefore(db.kysely, eventCutoff, limit));
  result.jobs = await inBatches(async (limit) => {
    const inputs = await deleteFinishedJobsBefore(db.kysely, now() - JOB_RETENTION_MS, limit);
    // the job removed its spool when it ended; this catches a removal that failed then
    for (const input of inputs) await removeSpool(blobs, { key: spoolOfJob(input) });
    return inputs.length;
  });
  return result;
}

/** The spool key of a job's input (JSON); every kind is an import for now. */
const spoolOfJob = (input: string) => (JSON.parse(input) as ImportJobInput).spool;

/** Runs a bounded deletion batch by batch, at most EVENT_DELETE_BATCHES_PER_RUN batches; answers the rows removed. */
async function inBatches(deleteBatch: (limit: number) => Promise<number>): Promise<number> {
  let removed = 0;
  for (let i = 0; i < EVENT_DELETE_BATCHES_PER_RUN; i++) {
    const n = await deleteBatch(EVENT_DELETE_BATCH);
    removed += n;
    if (n < EVENT_DELETE_BATCH) break;
  }
  return removed;
}
