// Runs one claimed job to its end: as the credential that asked (its access level and the
// organization's plan now: a credential revoked meanwhile fails the job), by its kind's verb, then
// stores the result, or the error body the synchronous door would have answered, and removes the
// job's spooled file. A failure of the moment (the database down, the organization busy) is not the
// job's: it is thrown, and the worker queues the job again.
import type { Kysely } from 'kysely';
import type { SystemContext } from '../context.ts';
import { scopesFor, type AccessLevel } from '../auth/scopes.ts';
import { DependencyUnavailableError, errorObject, RateLimitExceeded, ServiceError } from '../../shared/errors.ts';
import { findCredential } from '../../storage/db/repositories/auth/credentials.ts';
import { findOrganizationState } from '../../storage/db/repositories/organizations/organizations.ts';
import { finishJob, type JobRow } from '../../storage/db/repositories/service/jobs.ts';
import { runImportJob, type ImportJobInput } from '../vulnerabilities/import.ts';
import { removeSpool } from '../imports/spool.ts';
import type { ScanFormatLookup } from '../vulnerabilities/scan-format.ts';
import type { Database } from '../../storage/db/schema.ts';
import { JobProgressReporter, type ReportProgress } from './progress.ts';
import { runTestResultsJob } from '../tests/import-results.ts';
import type { CheckFormatLookup } from '../tests/check-result.ts';

export type JobEnding = 'succeeded' | 'failed' | 'lost';

/** What a job needs besides the context: the scanner and checker formats, looked up by the name its input keeps. */
export interface JobTools {
  scannerFormats: ScanFormatLookup;
  checkFormats: CheckFormatLookup;
}

/** Runs the job's kind's verb; its answer as the synchronous door would give it. */
async function runKind(
  ctx: Parameters<typeof runImportJob>[0],
  row: JobRow,
  input: ImportJobInput,
  tools: JobTools,
  progress: ReportProgress,
): Promise<unknown> {
  // Always found: the request that queued the job named a known format (a bug otherwise).
  if (row.kind === 'tests.importResults') {
    const format = tools.checkFormats(input.format);
    if (!format) throw new Error(`job ${row.id}: no check-results format ${input.format}`);
    return runTestResultsJob(ctx, input, format);
  }
  const format = tools.scannerFormats(input.format);
  if (!format) throw new Error(`job ${row.id}: no scanner format ${input.format}`);
  return runImportJob(ctx, input, format, progress);
}

export async function runJob(
  ctx: SystemContext,
  row: JobRow,
  owner: string,
  tools: JobTools,
  onUnexpected?: (err: Error) => void,
): Promise<JobEnding> {
  const input = JSON.parse(row.input) as ImportJobInput;
  let result: string | null = null;
  let error: string | null = null;
  const progress = new JobProgressReporter(ctx.db.kysely as Kysely<Database>, row.id, owner);
  try {
    const actorCtx = { ...ctx, actor: await actorOf(ctx, row) };
    result = JSON.stringify(await runKind(actorCtx, row, input, tools, progress.report));
  } catch (err) {
    // Not the job's failure but the moment's (a dependency down; on PostgreSQL, the organization
    // busy past the lock wait): the worker queues it again.
    if (err instanceof DependencyUnavailableError || err instanceof RateLimitExceeded) throw err;
    // a bug, not the file: stored as the synchronous door answers it (500 internal_error), without its text
    if (!(err instanceof ServiceError)) onUnexpected?.(err as Error);
    error = JSON.stringify(
      errorObject(
        err instanceof ServiceError
          ? err
          : new ServiceError('internal_error', `An unexpected error occurred. Quote job ID ${row.id} when reporting it.`),
      ),
    );
  }
  const ended = await finishJob(ctx.db.kysely, {
    id: row.id,
    owner,
    at: ctx.now(),
    status: error === null ? 'succeeded' : 'failed',
    result,
    error,
    progress: await progress.settled(),
  });
  if (!ended) return 'lost'; // another node took it over (this lease ran out): its run removes the spool
  await removeSpool(ctx.blobs, { key: input.spool });
  return error === null ? 'succeeded' : 'failed';
}

/** The actor of the credential that asked, as a token of it would be now. */
async function actorOf(ctx: SystemContext, row: JobRow) {
  const credential = await findCredential(ctx.db.kysely, row.credential_id);
  const org = await findOrganizationState(ctx.db.kysely, row.organization_id);
  if (!credential || credential.revokedAt !== null || !org)
    throw new ServiceError('token_revoked', 'The credential that sent this job was revoked before it ran.');
  return {
    organizationId: row.organization_id,
    credentialId: row.credential_id,
    scopes: new Set<string>(scopesFor(credential.accessLevel as AccessLevel)),
    plan: new Set(org.plan),
    dataVersions: org.dataVersions,
  };
}
