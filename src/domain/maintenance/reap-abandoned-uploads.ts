// The blobs of uploads whose process died mid-upload (or is stuck past the write lease), found
// through the pending_uploads journal: an upload is abandoned as soon as the server instance
// receiving it is gone (no heartbeat within the liveness window, docs/decisions/writes-and-uploads.md
// "Abandoned claims (claim liveness)"), so a dead node's partial files go within seconds. Each upload is taken first (one
// conditional statement), which keeps a live upload from being recorded once its blobs are going;
// then its blobs are deleted, and its journal row last, so an interrupted clean-up finds the row
// again next time.
import type { BlobStore } from '../../storage/blobs/store.ts';
import type { Db } from '../../storage/db/connect.ts';
import {
  deletePendingUpload,
  listAbandonedPendingUploads,
  takeAbandonedPendingUpload,
} from '../../storage/db/repositories/artifacts/uploads.ts';

export interface ReapContext {
  db: Db;
  blobs: BlobStore;
  now: () => number;
}

export interface ReapInput {
  /** an instance silent this long is gone (Config.claimLivenessMs) */
  livenessMs: number;
}

export interface ReapResult {
  abandonedUploads: number;
  orphanBlobs: number;
}

const BATCH = 100;

export async function reapAbandonedUploads({ ctx, input }: { ctx: ReapContext; input: ReapInput }): Promise<ReapResult> {
  const { db, blobs, now } = ctx;
  const result: ReapResult = { abandonedUploads: 0, orphanBlobs: 0 };
  const seen = new Set<string>();
  for (;;) {
    const at = () => ({ now: now(), aliveSince: now() - input.livenessMs });
    const batch = (await listAbandonedPendingUploads(db.kysely, at(), BATCH)).filter((u) => !seen.has(u.id));
    for (const upload of batch) {
      seen.add(upload.id);
      if (!(await takeAbandonedPendingUpload(db.kysely, upload.id, at()))) continue; // recorded meanwhile, or its instance is back
      for await (const key of blobs.list(upload.blobPrefix)) {
        await blobs.delete(key);
        result.orphanBlobs++;
      }
      result.orphanBlobs += (await blobs.removePartial?.(upload.blobPrefix)) ?? 0;
      await deletePendingUpload(db.kysely, upload.id);
      result.abandonedUploads++;
    }
    if (batch.length < BATCH) break;
  }
  return result;
}
