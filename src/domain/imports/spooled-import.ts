// What every import of a tool's file shares (a scanner's: domain/vulnerabilities/import.ts; a
// checker's: domain/tests/import-results.ts): the request's scope checked, the file spooled before
// any claim, transaction or lock (./spool.ts: a slow client holds none of them), its
// Idempotency-Key fingerprint (format, scope, SHA-256), and the choice between a job (a file above
// IMPORT_JOB_THRESHOLD_BYTES, or `Prefer: respond-async`: 202, the job owning the spool) and the
// synchronous import, after which the spool is removed however it ends.
import type { Context } from '../context.ts';
import { validationFailed } from '../../shared/errors.ts';
import { DEFAULT_IMPORT_JOB_THRESHOLD_BYTES, DEFAULT_IMPORT_MAX_BYTES } from '../../config.ts';
import { fingerprintSubject, jsonFingerprint } from '../idempotency/fingerprint.ts';
import type { IdempotencyInput, Outcome } from '../idempotency/run.ts';
import { removeSpool, spoolBody, type SpoolFormat, type Spooled } from './spool.ts';
import { nameText } from '../vulnerabilities/scanned-text.ts';
import { acceptJob, replayedAsNow } from '../jobs/accept.ts';
import type { Job, JobKind } from '../jobs/schema.ts';

/** What a job of an import kind runs on (the jobs row's `input`). */
export interface ImportJobInput {
  /** the format's name: the job worker looks it up again */
  format: string;
  scope: string | null;
  /** the spooled file's blob key, and its SHA-256 */
  spool: string;
  sha256: string;
}

export interface SpooledImportInput {
  format: SpoolFormat & { readonly name: string };
  scope?: string;
  body: AsyncIterable<Uint8Array | string>;
  idempotency: IdempotencyInput;
  /** `Prefer: respond-async` (RFC 7240): accept the import as a job whatever the file's size */
  respondAsync?: boolean;
}

/** The request's scope as given: one line of at most 255 characters, not blank. */
function requestScopeOf(scope: string | undefined): string | undefined {
  if (scope === undefined) return undefined;
  const text = nameText(scope);
  if (!text || text !== scope.trim())
    throw validationFailed([{ field: 'scope', message: 'must be one line of at most 255 characters, not blank' }]);
  return text;
}

/**
 * Spools the file and either accepts it as a job of `kind` or runs `now` on it (given the spool,
 * the request's scope and the Idempotency-Key fingerprint); a replayed answer of a key bound to a
 * job is the job as it is now.
 */
export async function spooledImport<R>(
  ctx: Context,
  kind: JobKind,
  input: SpooledImportInput,
  now: (spooled: Spooled, scope: string | undefined, fingerprint: string) => Promise<Outcome<R | Job>>,
): Promise<Outcome<R | Job>> {
  const scope = requestScopeOf(input.scope);
  const spooled = await spoolBody(ctx.blobs, {
    organizationId: ctx.actor.organizationId,
    now: ctx.now(),
    format: input.format,
    maxBytes: ctx.importMaxBytes ?? DEFAULT_IMPORT_MAX_BYTES,
    body: input.body,
  });
  let keepSpool = false;
  try {
    const fingerprint = jsonFingerprint(fingerprintSubject(kind, ''), {
      format: input.format.name,
      scope: scope ?? null,
      sha256: spooled.sha256,
    });
    if (input.respondAsync || spooled.size > (ctx.importJobThresholdBytes ?? DEFAULT_IMPORT_JOB_THRESHOLD_BYTES)) {
      const job: ImportJobInput = { format: input.format.name, scope: scope ?? null, spool: spooled.key, sha256: spooled.sha256 };
      const outcome = await acceptJob(ctx, input.idempotency, fingerprint, { kind, input: job });
      // A new job owns the spool now; a replay's spool is this request's copy only.
      keepSpool = !outcome.replayed;
      return outcome;
    }
    // the key may have been bound to a job by an earlier request (sent with Prefer: respond-async)
    return replayedAsNow<R | Job>(ctx, await now(spooled, scope, fingerprint));
  } finally {
    if (!keepSpool) await removeSpool(ctx.blobs, spooled);
  }
}
