// Imports a scanner's file (issue 27; docs/decisions/program-writes.md, "Scanner imports"): the
// verbs. The file is first spooled to the blob store as it arrives (../imports/spool.ts: metered,
// hashed, nothing locked: issue 36), then read back and imported (import-run.ts: parse, validate,
// resolve, read, diff, write, events) in slices of about 200 ms (import-slices.ts), or, when it is
// large or the client prefers it, accepted as a job that runs the same pipeline (domain/jobs/; the
// spool, scope, fingerprint and job choice every import shares: ../imports/spooled-import.ts). The format
// is handed in by the door that looked it up (./scan-format.ts).
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { keyScopeOf, runIdempotentInParts, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import type { Database } from '../../storage/db/schema.ts';
import type { ImportResult } from './import-schema.ts';
import type { Job } from '../jobs/schema.ts';
import type { ReportProgress } from '../jobs/progress.ts';
import { spooledImport, type ImportJobInput } from '../imports/spooled-import.ts';
import { readSpool } from '../imports/spool.ts';
import { ImportRun } from './import-run.ts';
import { ImportSlices } from './import-slices.ts';
import type { ScanFormat } from './scan-format.ts';

/**
 * A synchronous import's file up to this size is written in its first slice, as one transaction
 * (about a slice's length); a larger one is checked whole, then written in slices as a job's is
 * (./import-slices.ts), so that it never holds SQLite's one writer for long. Its answer is the same.
 */
export const ONE_TRANSACTION_MAX_BYTES = 256 * 1024;

export interface ImportInput {
  /** the format the door looked up by its name (src/formats/scanners/formats.ts) */
  format: ScanFormat;
  scope?: string;
  body: AsyncIterable<Uint8Array | string>;
  idempotency: IdempotencyInput;
  /** `Prefer: respond-async` (RFC 7240): accept the import as a job whatever the file's size */
  respondAsync?: boolean;
}

export type { ImportJobInput };

/**
 * The import's answer: its result (200), or, for a file above IMPORT_JOB_THRESHOLD_BYTES or a
 * request that prefers it, the job that will run it (202; domain/jobs/).
 */
export async function importVulnerabilities({ ctx, input }: { ctx: Context; input: ImportInput }): Promise<Outcome<ImportResult | Job>> {
  authorize(ctx.actor, 'vulnerability', 'write');
  const format = input.format;
  return spooledImport<ImportResult>(ctx, 'vulnerabilities.import', input, (spooled, requestScope, fingerprint) =>
    runIdempotentInParts<ImportResult | Job>(keyScopeOf(ctx, input.idempotency), [fingerprint], async (complete) => ({
      kind: 'updated' as const,
      resource: await importInSlices(ctx, format, requestScope, spooled, {
        checkFirst: spooled.size > ONE_TRANSACTION_MAX_BYTES,
        lastly: (trx, result) => complete(trx, { kind: 'updated', resource: result }),
      }),
    })),
  );
}

/**
 * Runs an import accepted as a job (domain/jobs/worker.ts) as the credential that sent it, its
 * format looked up by the worker from the job's input, from the same spooled file, written in
 * slices (the key was bound to the job). A re-run after a dead node converges, the import being a
 * diff. The caller removes the spool.
 */
export async function runImportJob(
  ctx: Context,
  job: ImportJobInput,
  format: ScanFormat,
  progress?: ReportProgress,
): Promise<ImportResult> {
  authorize(ctx.actor, 'vulnerability', 'write');
  return importInSlices(ctx, format, job.scope ?? undefined, { key: job.spool }, { checkFirst: true, progress });
}

/** How an import runs in slices (importInSlices). */
interface SliceOptions {
  /** checked whole first, nothing written (a job's file, a large one) */
  checkFirst: boolean;
  /** writes in the last slice before it commits (a synchronous import's key bound with its answer) */
  lastly?: (trx: Kysely<Database>, result: ImportResult) => Promise<void>;
  /** a job's progress */
  progress?: ReportProgress;
}

/**
 * An import in slices (./import-slices.ts), `lastly` writing in the last one before it commits.
 * A file that is `checkFirst` (a job's, a large one's) is checked whole first, writing nothing (on
 * SQLite its reads go beside the writer), so that a file refused late leaves nothing behind though
 * its writes are sliced. A small file is written in its first slice, however long it holds it,
 * as one transaction was; after its last finding only the close of the scope's unreported
 * findings, which a small file can make long (one result against 20,000 open), commits in slices.
 */
async function importInSlices(
  ctx: Context,
  format: ScanFormat,
  scope: string | undefined,
  spool: { key: string },
  { checkFirst, lastly, progress }: SliceOptions,
): Promise<ImportResult> {
  const org = ctx.actor.organizationId;
  const db = ctx.db.kysely as Kysely<Database>;
  let total: number | null = null;
  if (checkFirst) {
    const check = new ImportRun(ctx, db, format, scope, {
      dryRun: true,
      onBatch: progress && ((parsed) => progress({ stage: 'checking', parsed, written: 0, total: null })),
    });
    await check.execute(readSpool(ctx.blobs, spool));
    total = check.keysRead;
  }
  // The writes wait for the organization's earlier bulk writes on this node without a connection (organization-turns.ts).
  const write = () => writeInSlices(ctx, format, scope, spool, { checkFirst, lastly, progress }, total);
  return ctx.bulkTurns ? ctx.bulkTurns.run(org, write) : write();
}

/** The writes of an import, in slices (importInSlices); `total` is the findings its check counted, if it checked. */
async function writeInSlices(
  ctx: Context,
  format: ScanFormat,
  scope: string | undefined,
  spool: { key: string },
  { checkFirst, lastly, progress }: SliceOptions,
  total: number | null,
): Promise<ImportResult> {
  const org = ctx.actor.organizationId;
  const db = ctx.db.kysely as Kysely<Database>;
  const slices = new ImportSlices(
    db,
    async (changed) => {
      if (changed) await announceOrganizationChange(ctx, org);
    },
    { writersWaiting: ctx.db.writersWaiting, walCaughtUp: ctx.db.walCaughtUp },
  );
  const run = new ImportRun(ctx, await slices.begin(), format, scope, {
    slices,
    slicesWhileReading: checkFirst,
    onBatch: progress && ((written) => progress({ stage: 'writing', parsed: total ?? written, written, total })),
  });
  try {
    const result = await run.execute(readSpool(ctx.blobs, spool));
    await slices.commit(lastly && ((trx) => lastly(trx, result)));
    // Committed: every node reads the new data version before this is acknowledged.
    if (run.changed) await announceOrganizationChange(ctx, org);
    return result;
  } catch (err) {
    await slices.rollback().catch(() => {});
    throw err;
  }
}
