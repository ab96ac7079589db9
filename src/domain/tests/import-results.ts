// Imports a checker's report as test runs (POST /v1/tests/results/imports, an extension; issue 38;
// docs/check-results.md): the verbs. The same model as a scanner import (../vulnerabilities/import.ts):
// the file is spooled to the blob store as it arrives (metered, hashed, nothing locked), then read
// back whole (a refused file writes nothing) and applied in one transaction
// (./import-results-run.ts); a large file, or a request that prefers it, is accepted as a job of kind
// `tests.importResults` that runs the same (domain/jobs/). The format is handed in by the door that
// looked it up (src/formats/checks/formats.ts).
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../../storage/db/schema.ts';
import { authorize } from '../auth/scopes.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import type { Job } from '../jobs/schema.ts';
import { spooledImport, type ImportJobInput } from '../imports/spooled-import.ts';
import { readSpool } from '../imports/spool.ts';
import type { CheckFormat } from './check-result.ts';
import { importReport, readReport, unchangedSinceLast, type ReportSource } from './import-results-run.ts';
import type { TestResultsImport } from './import-results-schema.ts';

export interface ImportResultsInput {
  /** the format the door looked up by its name (src/formats/checks/formats.ts) */
  format: CheckFormat;
  scope?: string;
  body: AsyncIterable<Uint8Array | string>;
  idempotency: IdempotencyInput;
  /** `Prefer: respond-async` (RFC 7240): accept the import as a job whatever the file's size */
  respondAsync?: boolean;
}

/**
 * The import's answer: its result (200), or, for a file above IMPORT_JOB_THRESHOLD_BYTES or a
 * request that prefers it, the job that will run it (202).
 */
export async function importTestResults({
  ctx,
  input,
}: {
  ctx: Context;
  input: ImportResultsInput;
}): Promise<Outcome<TestResultsImport | Job>> {
  authorize(ctx.actor, 'test', 'write');
  const org = ctx.actor.organizationId;
  const format = input.format;
  return spooledImport<TestResultsImport>(ctx, 'tests.importResults', input, async (spooled, scope, fingerprint) => {
    const source: ReportSource = {
      format,
      requestScope: scope,
      sha256: spooled.sha256,
      read: () => readReport(format, readSpool(ctx.blobs, spooled)),
    };
    // Read before the transaction (no lock held while it is parsed), unless it is the last import's
    // file with nothing changed since.
    const db = ctx.db.kysely as Kysely<Database>;
    const report = (await unchangedSinceLast(db, org, source)) ? undefined : await source.read();
    let changed = false;
    const outcome = await runIdempotent<TestResultsImport | Job>(keyScopeOf(ctx, input.idempotency), [fingerprint], async (trx) => {
      const applied = await importReport(ctx, trx as Kysely<Database>, source, report);
      changed = applied.changed;
      return { kind: 'updated' as const, resource: applied.result };
    });
    // Committed: every node reads the new data version before this is acknowledged.
    if (changed) await announceOrganizationChange(ctx, org);
    return outcome;
  });
}

/**
 * Runs an import accepted as a job (domain/jobs/run.ts) as the credential that sent it, from the
 * same spooled file, in one transaction. The caller removes the spool.
 */
export async function runTestResultsJob(ctx: Context, job: ImportJobInput, format: CheckFormat): Promise<TestResultsImport> {
  authorize(ctx.actor, 'test', 'write');
  const source: ReportSource = {
    format,
    requestScope: job.scope ?? undefined,
    sha256: job.sha256,
    read: () => readReport(format, readSpool(ctx.blobs, { key: job.spool })),
  };
  const db = ctx.db.kysely as Kysely<Database>;
  const report = (await unchangedSinceLast(db, ctx.actor.organizationId, source)) ? undefined : await source.read();
  const applied = await db.transaction().execute((trx) => importReport(ctx, trx, source, report));
  if (applied.changed) await announceOrganizationChange(ctx, ctx.actor.organizationId);
  return applied.result;
}
