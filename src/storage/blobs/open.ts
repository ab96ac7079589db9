import type { Config } from '../../config.ts';
import { LocalDiskBlobStore } from './local-disk.ts';
import { S3BlobStore } from './s3.ts';
import type { BlobStore } from './store.ts';

/** S3_BUCKET set selects the S3-compatible store; otherwise files live under BLOB_DIR. */
export function openBlobStore(config: Pick<Config, 'blobDir' | 's3'>): BlobStore {
  return config.s3 ? new S3BlobStore(config.s3) : new LocalDiskBlobStore(config.blobDir);
}
