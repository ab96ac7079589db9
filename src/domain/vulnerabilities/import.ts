// Imports a scanner's file (issue 27; docs/decisions/program-writes.md, "Scanner imports"): the
// verbs. The file is first spooled to the blob store as it arrives (import-spool.ts: metered,
// hashed, nothing locked: issue 36), then read back and imported in the one transaction of the
// request (import-run.ts: parse, validate, resolve, read, diff, write, events), or, when it is large
// or the client prefers it, accepted as a job that runs the same pipeline (domain/jobs/). The format
// is handed in by the door that looked it up (./scan-format.ts).
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { validationFailed } from '../../shared/errors.ts';
import { fingerprintSubject, jsonFingerprint } from '../idempotency/fingerprint.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import type { Database } from '../../storage/db/schema.ts';
import { DEFAULT_IMPORT_JOB_THRESHOLD_BYTES } from '../../config.ts';
import { DEFAULT_IMPORT_MAX_BYTES, type ImportResult } from './import-schema.ts';
import { acceptJob, replayedAsNow } from '../jobs/accept.ts';
import type { Job } from '../jobs/schema.ts';
import { readSpool, removeSpool, spoolBody } from './import-spool.ts';
import { ImportRun } from './import-run.ts';
import { ImportSlices } from './import-slices.ts';
import type { ScanFormat } from './scan-format.ts';
import { nameText } from './scanned-text.ts';

export interface ImportInput {
  /** the format the door looked up by its name (src/formats/scanners/formats.ts) */
  format: ScanFormat;
  scope?: string;
  body: AsyncIterable<Uint8Array | string>;
  idempotency: IdempotencyInput;
  /** `Prefer: respond-async` (RFC 7240): accept the import as a job whatever the file's size */
  respondAsync?: boolean;
}

/** What a job of kind `vulnerabilities.import` runs on (the jobs row's `input`). */
export interface ImportJobInput {
  /** the format's name: the job worker looks it up again */
  format: string;
  scope: string | null;
  /** the spooled file's blob key, and its SHA-256 */
  spool: string;
  sha256: string;
}

/**
 * The import's answer: its result (200), or, for a file above IMPORT_JOB_THRESHOLD_BYTES or a
 * request that prefers it, the job that will run it (202; domain/jobs/).
 */
export async function importVulnerabilities({ ctx, input }: { ctx: Context; input: ImportInput }): Promise<Outcome<ImportResult | Job>> {
  authorize(ctx.actor, 'vulnerability', 'write');
  const org = ctx.actor.organizationId;
  const format = input.format;
  let requestScope: string | undefined;
  if (input.scope !== undefined) {
    requestScope = nameText(input.scope);
    if (!requestScope || requestScope !== input.scope.trim())
      throw validationFailed([{ field: 'scope', message: 'must be one line of at most 255 characters, not blank' }]);
  }
  // Spooled before the claim, the transaction or the lock: a slow client holds none of them.
  const spooled = await spoolBody(ctx.blobs, {
    organizationId: org,
    now: ctx.now(),
    format,
    maxBytes: ctx.importMaxBytes ?? DEFAULT_IMPORT_MAX_BYTES,
    body: input.body,
  });
  let keepSpool = false;
  try {
    const fingerprint = jsonFingerprint(fingerprintSubject('vulnerabilities.import', ''), {
      format: format.name,
      scope: requestScope ?? null,
      sha256: spooled.sha256,
    });
    if (input.respondAsync || spooled.size > (ctx.importJobThresholdBytes ?? DEFAULT_IMPORT_JOB_THRESHOLD_BYTES)) {
      const job: ImportJobInput = { format: format.name, scope: requestScope ?? null, spool: spooled.key, sha256: spooled.sha256 };
      const outcome = await acceptJob(ctx, input.idempotency, fingerprint, { kind: 'vulnerabilities.import', input: job });
      // A new job owns the spool now; a replay's spool is this request's copy only.
      keepSpool = !outcome.replayed;
      return outcome;
    }
    let changed = false;
    const outcome = await runIdempotent(keyScopeOf(ctx, input.idempotency), [fingerprint], async (trx) => {
      const run = new ImportRun(ctx, trx as Kysely<Database>, format, requestScope);
      const result = await run.execute(readSpool(ctx.blobs, spooled));
      changed = run.changed;
      return { kind: 'updated' as const, resource: result };
    });
    // Committed: every node reads the new data version before this is acknowledged.
    if (changed) await announceOrganizationChange(ctx, org);
    // the key may have been bound to a job by an earlier request (sent with Prefer: respond-async)
    return replayedAsNow<ImportResult | Job>(ctx, outcome);
  } finally {
    if (!keepSpool) await removeSpool(ctx.blobs, spooled);
  }
}

/**
 * Runs an import accepted as a job (domain/jobs/worker.ts) as the credential that sent it, its
 * format looked up by the worker from the job's input: the same
 * pipeline from the same spooled file, in one transaction of its own (the key was bound to the
 * job). A re-run after a dead node converges, the import being a diff. The caller removes the spool.
 */
export async function runImportJob(ctx: Context, job: ImportJobInput, format: ScanFormat): Promise<ImportResult> {
  authorize(ctx.actor, 'vulnerability', 'write');
  const org = ctx.actor.organizationId;
  const scope = job.scope ?? undefined;
  // The whole file checked first, writing nothing (on SQLite its reads go beside the writer), so
  // that a file refused late leaves nothing behind though the writes are sliced.
  await new ImportRun(ctx, ctx.db.kysely as Kysely<Database>, format, scope, { dryRun: true }).execute(
    readSpool(ctx.blobs, { key: job.spool }),
  );
  const slices = new ImportSlices(ctx.db.kysely as Kysely<Database>, async (changed) => {
    if (changed) await announceOrganizationChange(ctx, org);
  });
  const run = new ImportRun(ctx, await slices.begin(), format, scope, { slices });
  try {
    const result = await run.execute(readSpool(ctx.blobs, { key: job.spool }));
    await slices.commit();
    if (run.changed) await announceOrganizationChange(ctx, org);
    return result;
  } catch (err) {
    await slices.rollback().catch(() => {});
    throw err;
  }
}
