// What every domain verb receives besides its input. Built once by the app (app.ts) and per
// request from it, or once by the CLI; tests build it directly. Settings a verb needs (the cursor
// secret, token lifetime, console sessions, the rate limiter) are here, never extra arguments.
import type { Config, Region } from '../config.ts';
import type { Db } from '../storage/db/connect.ts';
import type { Actor } from './auth/scopes.ts';
import type { ResultCache } from './result-cache.ts';
import type { BlobStore } from '../storage/blobs/store.ts';
import type { MarkerBoard, RateLimitStore } from '../storage/ratelimit/store.ts';
import type { GrantCache } from './auth/grant-cache.ts';
import type { SessionSettings } from './console/session-settings.ts';
import type { AuditActor } from './console/audit.ts';
import type { ServerInstance } from './instances/server-instance.ts';
import type { OrganizationTurns } from './imports/organization-turns.ts';

/**
 * The database, the region this deployment serves and the clock: all that the verbs managing
 * organizations, credentials and administrators need, so the CLI and tests build it in one line.
 */
export interface BaseContext {
  db: Db;
  region: Region;
  now: () => number;
  /** see Config.maxActiveCredentialsPerOrg; default DEFAULT_MAX_ACTIVE_CREDENTIALS (config.ts) */
  maxActiveCredentialsPerOrg?: number;
  /**
   * Where changes are announced to every node after their commit (Redis, with PostgreSQL;
   * auth/state-markers.ts). Absent on SQLite, whose change stamp tells the server instead.
   */
  markers?: MarkerBoard;
  /** the webhooks' settings (Config.webhooks): the secrets key, the address policy, the rotation overlap */
  webhooks?: Config['webhooks'];
  /**
   * Resolves a host name to its addresses for the webhook address policy (webhooks/address-policy.ts);
   * absent: the system resolver. Tests inject one to make a name resolve to a chosen address.
   */
  lookupHost?: (host: string) => Promise<string[]>;
}

/** What the server's verbs receive: the base plus the shared services and settings. */
export interface SystemContext extends BaseContext {
  /** results keyed by the organization's data versions of the kinds they read */
  cache: ResultCache;
  /** tokens' grants kept in memory (auth/grant-cache.ts); absent where no change can be seen without the database */
  grants?: GrantCache;
  /** where uploaded files go */
  blobs: BlobStore;
  /** the rate-limit store (console sign-in attempts) */
  limiter: RateLimitStore;
  /** see Config.cursorSecret; absent: the key kept in the database (domain/cursor.ts) */
  cursorSecret?: string;
  /** see Config.tokenTtlSec */
  tokenTtlSec: number;
  /** console session lifetimes and the sign-in limit (Config.console) */
  session: SessionSettings;
  /** see Config.writeLeaseMs; default 150 s */
  writeLeaseMs?: number;
  /** the server process whose liveness bounds the claims it takes; absent: the lease alone does */
  instance?: ServerInstance;
  /** see Config.attachmentQuotaBytes; default DEFAULT_ATTACHMENT_QUOTA_BYTES */
  attachmentQuotaBytes?: number;
  /** see Config.importMaxBytes; default DEFAULT_IMPORT_MAX_BYTES (config.ts) */
  importMaxBytes?: number;
  /** see Config.importJobThresholdBytes; default DEFAULT_IMPORT_JOB_THRESHOLD_BYTES (config.ts) */
  importJobThresholdBytes?: number;
  /** the organizations' bulk writes queued on this node (imports/organization-turns.ts); absent: they queue in the database */
  bulkTurns?: OrganizationTurns;
}

/**
 * Who administers an organization: a console administrator (from the session token) or an
 * operator running `cds` for the organization named with --org. The organization a console or
 * admin verb acts on is always this one; the actor is also what the audit log records.
 */
export interface AdminActor extends AuditActor {
  organizationId: string;
}

/** What the console and admin verbs receive. */
export interface AdminContext extends BaseContext {
  actor: AdminActor;
}

/** A request made by an authenticated API credential. */
export interface Context extends SystemContext {
  actor: Actor;
}
