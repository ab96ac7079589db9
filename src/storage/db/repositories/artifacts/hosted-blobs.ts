// The blobs the database refers to: every attachment file the service hosts (the key, size and
// SHA-256 recorded when it was uploaded). `cds backup` copies exactly these next to its snapshot
// of the database (storage/backup/write-backup.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';

export interface HostedBlob {
  key: string;
  size: number;
  sha256: string;
}

export async function listHostedBlobs(db: Kysely<Database>): Promise<HostedBlob[]> {
  const rows = await db
    .selectFrom('attachments')
    .select(['blob_key', 'size_bytes', 'sha256'])
    .where('blob_key', 'is not', null)
    .orderBy('blob_key')
    .execute();
  return rows.map((r) => ({ key: r.blob_key!, size: Number(r.size_bytes ?? 0), sha256: r.sha256 ?? '' }));
}
