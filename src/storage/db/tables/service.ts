// The service's own bookkeeping: idempotency, uploads in flight, running processes, bulk jobs. Row types as Kysely sees them (see ../schema.ts for the conventions).
import type { Generated } from 'kysely';
import type { Ms } from './columns.ts';

export interface IdempotencyRecordsTable {
  credential_id: string;
  idempotency_key: string;
  organization_id: string;
  fingerprint: string;
  state: 'in_progress' | 'completed';
  /** completed (migration 0006): what the write did */
  outcome: 'created' | 'updated' | 'accepted' | null;
  /** records completed before migration 0006 only: the status code answered (see repositories/service/idempotency.ts) */
  status_code: number | null;
  /** completed: the resource answered, as JSON */
  response_body: string | null;
  /** records completed before migration 0006 only: the headers answered, as JSON (unread) */
  response_headers: string | null;
  created_at: Ms;
  /** completed: end of the replay window; in progress: same as lease_until's outer bound */
  expires_at: Ms;
  /** random token of the request holding the claim */
  owner: string | null;
  /** an in-progress claim older than this was abandoned and may be taken over */
  lease_until: Ms | null;
  /** (migration 0009) the server instance holding the claim; abandoned when it has no fresh heartbeat */
  instance_id: string | null;
}

/** Uploads in flight (migration 0004): blobs under blob_prefix not yet recorded as attachments. */
export interface PendingUploadsTable {
  id: string;
  organization_id: string;
  evidence_id: string;
  blob_prefix: string;
  created_at: Ms;
  expires_at: Ms;
  /** (migration 0009) the server instance receiving the upload; abandoned when it has no fresh heartbeat */
  instance_id: string | null;
}

/** Running server processes (migration 0009): the liveness that claims and pending uploads follow. */
export interface ServerInstancesTable {
  id: string;
  host: string;
  pid: number;
  started_at: Ms;
  heartbeat_at: Ms;
}

/** Bulk work run by a JobWorker (migration 0021). */
export interface JobsTable {
  id: string;
  organization_id: string;
  kind: 'vulnerabilities.import' | 'tests.importResults';
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  /** JSON */
  input: string;
  /** JSON of the synchronous door's answer */
  result: string | null;
  /** JSON of the synchronous door's error body (code, message, details) */
  error: string | null;
  credential_id: string;
  created_at: Ms;
  started_at: Ms | null;
  finished_at: Ms | null;
  lease_owner: string | null;
  lease_until: Ms | null;
  attempts: Generated<number>;
  /** JSON of the running job's progress (src/domain/jobs/schema.ts, JobProgress); null until it reports */
  progress: Generated<string | null>;
}
