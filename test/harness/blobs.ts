// Whether a blob is stored, for tests only: the service never asks (it lists prefixes when it
// cleans up and deletes what it no longer needs), so the BlobStore interface has no `exists`.
// The check goes through the store's own key validation and `list`, so it works on every engine
// and fails the way the store fails (InvalidBlobKeyError, DependencyUnavailableError).
import { assertBlobKey, type BlobStore } from '../../src/storage/blobs/store.ts';

export async function blobExists(store: BlobStore, key: string): Promise<boolean> {
  assertBlobKey(key);
  for await (const listed of store.list(key)) if (listed === key) return true;
  return false;
}
