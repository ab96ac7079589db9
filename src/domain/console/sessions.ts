// Console sessions: signing in with email and password, resolving the session cookie on every
// admin API request, and signing out. A session ends at the first of: its absolute end
// (`maxMs` after sign-in), `idleMs` without a request, or sign-out. The token lives only in the
// administrator's HttpOnly cookie; the database keeps its SHA-256.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { RateLimitSettings } from '../../config.ts';
import type { BaseContext, SystemContext } from '../context.ts';
import { ServiceError, validationFailed } from '../errors.ts';
import { hashSecret } from '../auth/secrets.ts';
import { recordAudit, type AuditActor } from './audit.ts';
import { verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import { normalizeEmail } from './admin-view.ts';
import type { Backoff, RateLimitStore } from '../../storage/ratelimit/store.ts';
import { claimAttempt, forgetFailures, hitLimit, peekLimit, rateLimitExceeded, recordFailure } from '../../storage/ratelimit/limiter.ts';
import { findAdmin, findAdminByEmail, recordAdminSignIn } from '../../storage/db/repositories/admins.ts';
import { findOrganization } from '../../storage/db/repositories/organizations.ts';
import * as sessions from '../../storage/db/repositories/admin-sessions.ts';

export const SESSION_TOKEN_PREFIX = 'cds_session_';
const IP_ALLOWANCE_FACTOR = 10;

export interface SessionSettings {
  idleMs: number;
  maxMs: number;
  signInLimit: RateLimitSettings;
}

export interface SignedInAdmin {
  sessionId: string;
  admin: { id: string; email: string };
  organization: { id: string; name: string };
  csrfToken: string;
  expiresAt: number;
}

/** Where a request came from, for the audit log. */
export interface Origin {
  ip: string | null;
  userAgent: string | null;
}

const sessionExpiry = (s: sessions.AdminSessionRecord, idleMs: number) => Math.min(s.expiresAt, s.lastSeenAt + idleMs);

/**
 * The CSRF token is derived from the session token, so it needs no storage and cannot be known
 * without the cookie; the console reads it from the session response and sends it on changes.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('console-csrf').digest('base64url');
}

export function csrfMatches(sessionToken: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const unauthorized = (message: string) => new ServiceError('unauthorized', message);

// Only failed sign-ins count. Per email, a growing delay rather than a lock-out: the first
// `signInLimit.max` failures are free, then each attempt waits 1 s, 2 s, 4 s … at most 60 s after
// the previous one, so guessing slows to a trickle while the owner, typing the right password
// after the wait, gets in (and a success forgets the failures). Per address, failures are
// limited to ten times an account's allowance per window (many people may share one address,
// an office behind NAT), so one address cannot guess many accounts' passwords quickly.
const signInBackoff = (limit: RateLimitSettings): Backoff => ({
  freeFailures: limit.max,
  baseMs: 1000,
  maxMs: 60_000,
  forgetAfterSec: limit.windowSec,
});
const addressLimit = (limit: RateLimitSettings): RateLimitSettings => ({ max: limit.max * IP_ALLOWANCE_FACTOR, windowSec: limit.windowSec });
const tooMany = (wait: number) => rateLimitExceeded(wait, 'Too many failed sign-in attempts');

async function checkSignInLimit(store: RateLimitStore, limit: RateLimitSettings, email: string, ip: string | null, now: number) {
  if (ip) {
    const byIp = await peekLimit(store, 'console-signin:ip', ip, addressLimit(limit), now);
    if (byIp.exceeded) throw tooMany(byIp.retryAfterSec);
  }
  const wait = await claimAttempt(store, 'console-signin:email', email, signInBackoff(limit), now);
  if (wait !== undefined) throw tooMany(wait);
}

async function countSignInFailure(store: RateLimitStore, limit: RateLimitSettings, email: string, ip: string | null, now: number) {
  await Promise.all([
    recordFailure(store, 'console-signin:email', email, signInBackoff(limit), now),
    ip ? hitLimit(store, 'console-signin:ip', ip, addressLimit(limit), now) : undefined,
  ]);
}

export async function signIn({
  ctx,
  input,
}: {
  ctx: SystemContext;
  input: { email: string; password: string; origin: Origin };
}): Promise<{ token: string; session: SignedInAdmin }> {
  const { session: settings, limiter: store } = ctx;
  const email = normalizeEmail(input.email);
  if (!email) throw validationFailed([{ field: 'email', message: 'must not be empty' }]);
  if (input.password.length === 0) throw validationFailed([{ field: 'password', message: 'must not be empty' }]);
  const now = ctx.now();
  await checkSignInLimit(store, settings.signInLimit, email, input.origin.ip, now);

  const admin = await findAdminByEmail(ctx.db.kysely, email);
  const ok = admin ? await verifyPassword(input.password, admin.passwordHash) : await verifyAgainstDecoy(input.password);
  // An organization of another region (regional deployments sharing a database) signs in only on
  // its own region's deployment; here it fails like a wrong password, so nothing tells the account exists.
  const org = admin && ok ? await findOrganization(ctx.db.kysely, admin.organizationId) : undefined;
  if (!admin || !ok || !org || org.region !== ctx.region) {
    await countSignInFailure(store, settings.signInLimit, email, input.origin.ip, now);
    if (admin) {
      await recordAudit(ctx.db.kysely, {
        organizationId: admin.organizationId,
        actor: { type: 'admin', id: admin.id, label: admin.email, ...input.origin },
        action: 'session.sign_in_failed',
        target: { type: 'admin', id: admin.id, label: admin.email },
        at: now,
      });
    }
    throw unauthorized('The email or password is wrong.');
  }
  await forgetFailures(store, 'console-signin:email', email);

  const token = SESSION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const record: sessions.AdminSessionRecord = {
    id: randomUUID(),
    tokenHash: hashSecret(token),
    adminId: admin.id,
    organizationId: admin.organizationId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + settings.maxMs,
    ip: input.origin.ip?.slice(0, 100) ?? null,
    userAgent: input.origin.userAgent?.slice(0, 512) ?? null,
  };
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await sessions.insertSession(tx, record);
    await recordAdminSignIn(tx, admin.id, now);
    await recordAudit(tx, {
      organizationId: admin.organizationId,
      actor: { type: 'admin', id: admin.id, label: admin.email, ...input.origin },
      action: 'session.sign_in',
      target: { type: 'session', id: record.id, label: admin.email },
      at: now,
    });
  });
  return {
    token,
    session: {
      sessionId: record.id,
      admin: { id: admin.id, email: admin.email },
      organization: { id: org.id, name: org.name },
      csrfToken: csrfTokenFor(token),
      expiresAt: sessionExpiry(record, settings.idleMs),
    },
  };
}

/** The signed-in administrator of a session cookie; `unauthorized` if it is unknown or has ended. */
export async function resolveSession({ ctx, input }: { ctx: SystemContext; input: { token: string | undefined } }): Promise<SignedInAdmin> {
  const settings = ctx.session;
  const token = input.token;
  if (!token || !token.startsWith(SESSION_TOKEN_PREFIX) || token.length > 200) throw unauthorized('Sign in to use the console.');
  const now = ctx.now();
  const record = await sessions.findSessionByTokenHash(ctx.db.kysely, hashSecret(token));
  if (!record || sessionExpiry(record, settings.idleMs) <= now) throw unauthorized('The session has ended; sign in again.');
  const [admin, org] = await Promise.all([findAdmin(ctx.db.kysely, record.adminId), findOrganization(ctx.db.kysely, record.organizationId)]);
  // A session of another region's organization (made on that region's deployment) is not served here.
  if (!admin || !org || org.region !== ctx.region) throw unauthorized('The session has ended; sign in again.');
  // Sliding idle expiry, written at most once a minute so reads do not each cost a write.
  if (now - record.lastSeenAt >= 60_000) {
    await sessions.touchSession(ctx.db.kysely, record.id, now);
    record.lastSeenAt = now;
  }
  return {
    sessionId: record.id,
    admin: { id: admin.id, email: admin.email },
    organization: { id: org.id, name: org.name },
    csrfToken: csrfTokenFor(token),
    expiresAt: sessionExpiry(record, settings.idleMs),
  };
}

export async function signOut({ ctx, input }: { ctx: BaseContext; input: { session: SignedInAdmin; origin: Origin } }) {
  const { session } = input;
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await sessions.deleteSession(tx, session.sessionId);
    await recordAudit(tx, {
      organizationId: session.organization.id,
      actor: adminActor(session, input.origin),
      action: 'session.sign_out',
      target: { type: 'session', id: session.sessionId, label: session.admin.email },
      at: ctx.now(),
    });
  });
}

export const adminActor = (session: SignedInAdmin, origin: Origin): AuditActor => ({
  type: 'admin',
  id: session.admin.id,
  label: session.admin.email,
  ...origin,
});
