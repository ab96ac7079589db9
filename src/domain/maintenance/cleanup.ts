// Periodic clean-up that keeps storage bounded: idempotency records past their window (24-hour
// responses, abandoned claims), blobs of uploads whose process died before recording them, and
// (local disk) temporary files of interrupted writes. Every node runs it; the work is idempotent,
// so nodes running it at the same time only repeat deletions that are harmless.
import type { Db } from '../../storage/db/connect.ts';
import type { BlobStore } from '../../storage/blobs/store.ts';
import { deleteExpiredIdempotencyRecords } from '../../storage/db/repositories/idempotency.ts';
import { deletePendingUpload, listExpiredPendingUploads } from '../../storage/db/repositories/uploads.ts';

export interface CleanupResult {
  idempotencyRecords: number;
  abandonedUploads: number;
  orphanBlobs: number;
  temporaryFiles: number;
}

export interface CleanupDeps {
  db: Db;
  blobs: BlobStore;
  now: () => number;
  /** temporary files older than this are from interrupted writes */
  temporaryAgeMs: number;
}

export async function runCleanup({ db, blobs, now, temporaryAgeMs }: CleanupDeps): Promise<CleanupResult> {
  const result: CleanupResult = { idempotencyRecords: 0, abandonedUploads: 0, orphanBlobs: 0, temporaryFiles: 0 };
  result.idempotencyRecords = await deleteExpiredIdempotencyRecords(db.kysely, now());
  for (;;) {
    const batch = await listExpiredPendingUploads(db.kysely, now(), 100);
    for (const upload of batch) {
      // Blobs first, the journal row last: if this is interrupted, the row is still there next time.
      for await (const key of blobs.list(upload.blobPrefix)) {
        await blobs.delete(key);
        result.orphanBlobs++;
      }
      await deletePendingUpload(db.kysely, upload.id);
      result.abandonedUploads++;
    }
    if (batch.length < 100) break;
  }
  result.temporaryFiles = (await blobs.sweepTemporary?.(temporaryAgeMs)) ?? 0;
  return result;
}
