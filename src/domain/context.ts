// What every domain verb receives besides its input. Built per request by the HTTP layer, or once
// by the CLI; tests build it directly.
import type { Region } from '../config.ts';
import type { Db } from '../storage/db/connect.ts';
import type { Actor } from './auth/scopes.ts';
import type { ResultCache } from './result-cache.ts';
import type { BlobStore } from '../storage/blobs/store.ts';

export interface SystemContext {
  db: Db;
  region: Region;
  now: () => number;
  /** results keyed by organization data version; absent in the CLI */
  cache?: ResultCache;
  /** where uploaded files go; absent in the CLI, which uploads nothing */
  blobs?: BlobStore;
  /** see Config.writeLeaseMs; default 150 s */
  writeLeaseMs?: number;
  /** see Config.maxActiveCredentialsPerOrg; default DEFAULT_MAX_ACTIVE_CREDENTIALS (config.ts) */
  maxActiveCredentialsPerOrg?: number;
  /** see Config.attachmentQuotaBytes; default DEFAULT_ATTACHMENT_QUOTA_BYTES */
  attachmentQuotaBytes?: number;
}

/** A request made by an authenticated API credential. */
export interface Context extends SystemContext {
  actor: Actor;
}
