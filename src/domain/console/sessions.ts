// Console sessions: signing in with email and password, resolving the session cookie on every
// admin API request, and signing out. A session ends at the first of: its absolute end
// (`maxMs` after sign-in), `idleMs` without a request, or sign-out. The token lives only in the
// administrator's HttpOnly cookie; the database keeps its SHA-256.
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { RateLimitSettings } from '../../config.ts';
import type { SystemContext } from '../context.ts';
import { ServiceError, validationFailed } from '../errors.ts';
import { hashSecret } from '../auth/secrets.ts';
import { recordAudit, type AuditActor } from './audit.ts';
import { verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import { normalizeEmail } from './admins.ts';
import { retryAfterSec, type RateLimitStore } from '../../storage/ratelimit/store.ts';
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

async function checkSignInLimit(store: RateLimitStore, limit: RateLimitSettings, email: string, ip: string | null, now: number) {
  // Per account and per address: guessing one account's password from many addresses, or many
  // accounts' from one address, stays slow either way. An address gets ten times an account's
  // allowance, since many people may share one (an office behind NAT).
  const emailKey = createHash('sha256').update(email).digest('hex');
  const [byEmail, byIp] = await Promise.all([
    store.hit(`console-signin:email:${emailKey}`, limit.windowSec),
    ip ? store.hit(`console-signin:ip:${ip}`, limit.windowSec) : undefined,
  ]);
  const over = [
    ...(byEmail.count > limit.max ? [byEmail] : []),
    ...(byIp && byIp.count > limit.max * IP_ALLOWANCE_FACTOR ? [byIp] : []),
  ];
  if (over.length > 0) {
    const wait = Math.max(...over.map((w) => retryAfterSec(w, now)));
    throw new ServiceError('rate_limit_exceeded', `Too many sign-in attempts; retry in ${wait} s.`, [{ retryAfterSec: wait }]);
  }
}

export async function signIn({
  ctx,
  input,
  settings,
  store,
}: {
  ctx: SystemContext;
  input: { email: string; password: string; origin: Origin };
  settings: SessionSettings;
  store: RateLimitStore;
}): Promise<{ token: string; session: SignedInAdmin }> {
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
export async function resolveSession({
  ctx,
  input,
  settings,
}: {
  ctx: SystemContext;
  input: { token: string | undefined };
  settings: Pick<SessionSettings, 'idleMs'>;
}): Promise<SignedInAdmin> {
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

export async function signOut({ ctx, input }: { ctx: SystemContext; input: { session: SignedInAdmin; origin: Origin } }) {
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
