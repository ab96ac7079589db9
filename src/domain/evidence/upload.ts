// Uploads attachments to an evidence record: files streamed into the blob store while hashed and
// counted, then recorded in one transaction with the evidence's new status and the stored
// idempotent result. Nothing is recorded unless everything is accepted; blobs of a refused or
// failed upload are deleted at once, and those of a process that died mid-upload are found
// through the pending_uploads journal by the clean-up (src/domain/maintenance/cleanup.ts).
import { randomUUID } from 'node:crypto';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound, ServiceError, validationFailed, type FieldIssue } from '../../shared/errors.ts';
import { fingerprintSubjects, multipartFingerprint, type PartDigest } from '../idempotency/fingerprint.ts';
import {
  claimKey,
  completeUnderClaim,
  keyReused,
  keyScopeOf,
  releaseClaimOf,
  requestInProgress,
  storedOutcome,
  type IdempotencyInput,
  type Outcome,
} from '../idempotency/run.ts';
import { attachmentPeriod, type EVIDENCE_STATUSES } from '../../shared/vocabulary.ts';
import { BlobTooLargeError, Meter } from '../../storage/blobs/store.ts';
import { findEvidence } from '../../storage/db/repositories/artifacts/evidence.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../../shared/data-versions.ts';
import {
  sumAttachmentBytes,
  deletePendingUpload,
  finishPendingUpload,
  hasApprovers,
  insertAttachments,
  insertPendingUpload,
  updateEvidenceStatus,
} from '../../storage/db/repositories/artifacts/uploads.ts';
import { ACCEPTED_LIST, fileFamily, needsZipSignature, NotAZipPackageError, ZipSignatureCheck } from './file-types.ts';
import { cleanedName } from '../text.ts';
import { bytesLeft, DEFAULT_ATTACHMENT_QUOTA_BYTES, quotaExceeded, type QuotaUse } from './storage-quota.ts';
import type { UploadResult } from './write-schema.ts';
import type { Attachment } from './schema.ts';
import { isCurrentPeriod } from './get.ts';
import { evidenceState } from '../compliance/rules.ts';
import { complianceChanges } from '../events/compliance-changes.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import { setPresent } from '../set-present.ts';
import { refreshStaleAt } from '../../storage/db/repositories/service/time-due.ts';
import { TIME_MOVES } from '../time/due.ts';

/** The spec's limits: files per upload and their combined size (100 MB, read as 100 MiB). */
export const MAX_FILES = 5;
export const MAX_TOTAL_BYTES = 100 * 1024 * 1024;
export const MAX_NOTE_LENGTH = 2000;
export const MAX_FILENAME_LENGTH = 255;
/** An evidenceDate this far ahead of the server's clock is still "now" (client clocks drift). */
export const CLOCK_SKEW_MS = 60_000;

/** One part of the upload body, as the route hands it over. */
export type UploadPart =
  | { kind: 'field'; name: string; value: string; truncated: boolean }
  | { kind: 'file'; name: string; filename: string; stream: Readable };

export interface UploadInput {
  evidenceId: string;
  idempotency: IdempotencyInput;
  parts: AsyncIterable<UploadPart>;
}

interface ReadFile {
  displayName: string;
  family: string;
  blobKey: string;
  size: number;
  sha256: string;
}

interface ReadUpload {
  files: ReadFile[];
  evidenceDate: number;
  note: string | null;
  digests: PartDigest[];
}

/** Where a file's bytes go: the blob store, or (to compare a retry with a stored upload) nowhere. */
type Sink = (index: number, source: Readable, maxBytes: number) => Promise<{ key: string; size: number; sha256: string }>;

const fileIssue = (message: string) => validationFailed([{ field: 'files', message }]);

/** The name shown for a file: its last path segment, cleaned of control and invisible characters (src/domain/text.ts). */
function displayName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  return cleanedName(base);
}

function parseEvidenceDate(raw: string, now: number | undefined): number | FieldIssue {
  const text = raw.trim();
  // epoch ms as a number or numeric string: digits, optionally with a zero fraction (`1.7e12` is not accepted)
  if (!/^\d{1,16}(?:\.0*)?$/.test(text)) return { field: 'evidenceDate', message: 'must be epoch milliseconds (a whole number)' };
  const value = Math.trunc(Number(text));
  if (now !== undefined && value > now + CLOCK_SKEW_MS) return { field: 'evidenceDate', message: 'must not be in the future' };
  return value;
}

/**
 * Reads every part, sending files to `sink`, and checks the form: parts named `files` (1-5, of
 * accepted types, not empty, 100 MiB together, and within what is left of the storage quota
 * `quota` when given), `evidenceDate` (required, not in the future unless `now` is undefined)
 * and `note` (optional); nothing else.
 */
async function readUpload(parts: AsyncIterable<UploadPart>, sink: Sink, now: number | undefined, quota?: QuotaUse): Promise<ReadUpload> {
  const files: ReadFile[] = [];
  const digests: PartDigest[] = [];
  let total = 0;
  let evidenceDate: number | undefined;
  let note: string | undefined;
  for await (const part of parts) {
    if (part.kind === 'file') {
      if (part.name !== 'files')
        throw validationFailed([
          { field: part.name || 'body', message: 'is not an accepted part; send each file in a part named "files"' },
        ]);
      if (files.length >= MAX_FILES) throw fileIssue(`at most ${MAX_FILES} files per upload`);
      const name = displayName(part.filename);
      if (name === '') throw fileIssue('every file needs a file name');
      if (name.length > MAX_FILENAME_LENGTH) throw fileIssue(`file names must be at most ${MAX_FILENAME_LENGTH} characters`);
      const family = fileFamily(name);
      if (!family) throw fileIssue(`${name}: this file type is not accepted; accepted: ${ACCEPTED_LIST}`);
      let source: Readable = part.stream;
      if (needsZipSignature(family)) {
        const check = new ZipSignatureCheck();
        part.stream.on('error', (err) => check.destroy(err));
        source = part.stream.pipe(check);
      }
      // The file is cut off as soon as it passes the tighter of the two limits.
      const sizeRoom = MAX_TOTAL_BYTES - total;
      const quotaRoom = quota ? bytesLeft(quota) - total : Infinity;
      let stored;
      try {
        stored = await sink(files.length, source, Math.min(sizeRoom, quotaRoom));
      } catch (err) {
        if (err instanceof BlobTooLargeError && quota && quotaRoom < sizeRoom) throw quotaExceeded(quota);
        if (err instanceof BlobTooLargeError) throw fileIssue(`the files together must be at most ${MAX_TOTAL_BYTES} bytes (100 MB)`);
        if (err instanceof NotAZipPackageError) throw fileIssue(`${name}: .numbers and .pages files must be zip packages`);
        if (err instanceof ServiceError) throw err;
        // The body itself failed (cut short, malformed): the route's part iterator reports those as
        // ServiceErrors, but a file stream can fail first.
        throw validationFailed(
          [{ field: 'body', message: 'is not complete, valid multipart/form-data' }],
          'The multipart body ended early or is malformed.',
        );
      }
      files.push({ displayName: name, family, blobKey: stored.key, size: stored.size, sha256: stored.sha256 });
      digests.push({ kind: 'file', name: part.name, filename: part.filename, sha256: stored.sha256 });
      if (stored.size === 0) throw fileIssue(`${name}: the file is empty`);
      total += stored.size;
      continue;
    }
    if (part.truncated) throw validationFailed([{ field: part.name || 'body', message: 'is too long' }]);
    if (part.name === 'evidenceDate') {
      if (evidenceDate !== undefined) throw validationFailed([{ field: 'evidenceDate', message: 'must be given once' }]);
      const parsed = parseEvidenceDate(part.value, now);
      if (typeof parsed !== 'number') throw validationFailed([parsed]);
      evidenceDate = parsed;
    } else if (part.name === 'note') {
      if (note !== undefined) throw validationFailed([{ field: 'note', message: 'must be given once' }]);
      if (part.value.length > MAX_NOTE_LENGTH)
        throw validationFailed([{ field: 'note', message: `must be at most ${MAX_NOTE_LENGTH} characters` }]);
      // PostgreSQL text cannot hold U+0000.
      if (part.value.includes('\u0000'))
        throw validationFailed([{ field: 'note', message: 'must not contain the NUL character (U+0000)' }]);
      note = part.value;
    } else {
      throw validationFailed([{ field: part.name || 'body', message: 'is not an accepted part (files, evidenceDate, note)' }]);
    }
    digests.push({ kind: 'field', name: part.name, value: part.value });
  }
  const issues: FieldIssue[] = [];
  if (files.length === 0) issues.push({ field: 'files', message: 'at least one file is required' });
  if (evidenceDate === undefined) issues.push({ field: 'evidenceDate', message: 'is required' });
  if (issues.length > 0) throw validationFailed(issues);
  return { files, evidenceDate: evidenceDate!, note: note === undefined || note === '' ? null : note, digests };
}

/** Hashes and counts a file without keeping it: a retry is compared with the stored upload. */
const digestOnly: Sink = async (index, source, maxBytes) => {
  const meter = new Meter(maxBytes);
  await pipeline(source, meter, new Writable({ write: (_chunk, _encoding, callback) => callback() }));
  return { key: String(index), size: meter.bytesSeen, sha256: meter.digest() };
};

/** One file of an upload as GET /v1/evidence/{evidenceId}?fields=attachments shows it: the data of evidence.attachments_added. */
function attachmentOf(
  displayName: string,
  type: string,
  upload: { evidenceDate: number; note: string | null },
  period: { periodStart: number | null; periodEnd: number | null },
  now: number,
): Attachment {
  const entry: Attachment = { displayName, type, addedOn: now, evidenceDate: upload.evidenceDate, isCurrentPeriod: false };
  setPresent(entry, 'note', upload.note);
  setPresent(entry, 'periodStart', period.periodStart);
  setPresent(entry, 'periodEnd', period.periodEnd);
  entry.isCurrentPeriod = isCurrentPeriod(entry, now);
  return entry;
}

export async function uploadAttachments({ ctx, input }: { ctx: Context; input: UploadInput }): Promise<Outcome<UploadResult>> {
  authorize(ctx.actor, 'evidence', 'write');
  const blobs = ctx.blobs;
  const k = ctx.db.kysely;
  const org = ctx.actor.organizationId;
  const evidence = await findEvidence(k, org, input.evidenceId);
  if (!evidence) throw notFound('Evidence');
  // The evidence as stored, so every spelling of its ID shares fingerprints.
  const subjects = fingerprintSubjects('evidence.upload', evidence.id, input.idempotency.legacySubject);
  const scope = keyScopeOf(ctx, input.idempotency);

  const uploadId = randomUUID();
  const prefix = `uploads/${org}/${uploadId}/`;
  // A multipart body is only known once read, so the claim is taken without a fingerprint. The
  // upload's journal entry is written with it, in one transaction: on SQLite the door then waits
  // for the one writer once before it reads the body, not twice (beside a bulk importer's slices,
  // three waits in all cut a small upload at a 3 s request time-out: test/process/soak.test.ts).
  const claim = await claimKey(scope, [], (trx) =>
    insertPendingUpload(trx, {
      id: uploadId,
      organizationId: org,
      evidenceId: evidence.id,
      blobPrefix: prefix,
      createdAt: ctx.now(),
      expiresAt: ctx.now() + scope.settings.leaseMs,
      instanceId: ctx.instance?.id ?? null,
    }),
  );
  if (claim.kind === 'completed') {
    const retry = await readUpload(input.parts, digestOnly, undefined);
    if (!subjects.some((s) => multipartFingerprint(s, retry.digests) === claim.record.fingerprint)) throw keyReused();
    return storedOutcome(claim.record);
  }

  const stored: string[] = [];
  const quotaBytes = ctx.attachmentQuotaBytes ?? DEFAULT_ATTACHMENT_QUOTA_BYTES;
  try {
    const upload = await readUpload(
      input.parts,
      (index, source, maxBytes) => {
        const key = `${prefix}${index}`;
        stored.push(key);
        return blobs.put(key, source, { maxBytes });
      },
      ctx.now(),
      // What other uploads use right now; the transaction below checks again.
      { quotaBytes, usedBytes: await sumAttachmentBytes(k, org) },
    );
    const fingerprint = multipartFingerprint(subjects[0], upload.digests);
    const outcome = await completeUnderClaim(
      scope,
      claim.owner,
      () => fingerprint,
      async (trx) => {
        // First: the update locks the organization's row, so concurrent uploads of one organization
        // are recorded one at a time, each counting the bytes of those recorded before it.
        await bumpDataVersions(trx, org, WRITES['evidence.upload']);
        const usedBytes = await sumAttachmentBytes(trx, org);
        const uploadBytes = upload.files.reduce((sum, f) => sum + f.size, 0);
        if (usedBytes + uploadBytes > quotaBytes) throw quotaExceeded({ quotaBytes, usedBytes }, uploadBytes);
        const now = ctx.now();
        const period = attachmentPeriod(evidence.recurrence, upload.evidenceDate);
        await insertAttachments(
          trx,
          org,
          evidence.id,
          uploadId,
          now,
          upload.files.map((f) => ({
            displayName: f.displayName,
            type: f.family,
            note: upload.note,
            blobKey: f.blobKey,
            sizeBytes: f.size,
            sha256: f.sha256,
            evidenceDate: upload.evidenceDate,
            ...period,
          })),
        );
        // Stale at once when no attachment covers the current period: the upload backfilled an
        // ended period (docs/decisions/program-writes.md, "Time").
        const staleAt = (await refreshStaleAt(trx, org, [evidence.id])).get(evidence.id) ?? null;
        const status =
          staleAt !== null && staleAt <= now
            ? TIME_MOVES.evidence.to
            : (await hasApprovers(trx, org, evidence.id))
              ? 'pending_approval'
              : 'uploaded';
        // The record as it is now, under the lock taken above: the status this upload changes.
        const current = (await findEvidence(trx, org, evidence.id)) ?? evidence;
        await updateEvidenceStatus(trx, org, evidence.id, status, now);
        const events: NewEvent[] = [
          {
            type: 'evidence.attachments_added',
            resourceId: evidence.id,
            occurredAt: now,
            data: { attachments: upload.files.map((f) => attachmentOf(f.displayName, f.family, upload, period, now)) },
          },
        ];
        if (current.status !== status) {
          const before = current.status as (typeof EVIDENCE_STATUSES)[number];
          events.push({ type: 'evidence.status_changed', resourceId: evidence.id, occurredAt: now, data: { before, after: status } });
          const cause = { type: 'evidence.status_changed', resourceId: evidence.id };
          events.push(
            ...(await complianceChanges(trx, org, {
              type: 'evidence',
              id: evidence.id,
              before: evidenceState(current.isRelevant, current.status),
              after: evidenceState(current.isRelevant, status),
              cause,
              occurredAt: now,
            })),
          );
        }
        await recordEvents(trx, org, events);
        // The clean-up took this upload as abandoned (this process was silent too long, or past
        // the lease) and is deleting its blobs: record nothing, let the client retry.
        if (!(await finishPendingUpload(trx, uploadId))) throw requestInProgress();
        return { kind: 'created' as const, resource: { evidenceId: evidence.id, modifiedOn: now } };
      },
    );
    // Committed: every node reads the new data version before this is acknowledged (announcing
    // never throws: a failure is retried in the background, so the upload stands).
    await announceOrganizationChange(ctx, org);
    return outcome;
  } catch (err) {
    const removed = await Promise.allSettled(stored.map((key) => blobs.delete(key)));
    // Keep the journal entry when a blob could not be removed: the clean-up will try again.
    if (removed.every((r) => r.status === 'fulfilled')) {
      const forget = () => deletePendingUpload(k, uploadId);
      await forget().catch(() => ctx.instance?.retryLater(forget));
    }
    await releaseClaimOf(scope, claim.owner);
    throw err;
  }
}
