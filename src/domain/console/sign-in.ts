// Signing in to the console with email and password: starts a session (see session.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import type { RateLimitSettings } from '../../config.ts';
import type { SystemContext } from '../context.ts';
import { validationFailed } from '../../shared/errors.ts';
import { hashSecret } from '../auth/secrets.ts';
import { recordAudit } from './audit.ts';
import { verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import { normalizeEmail } from './admin-view.ts';
import { csrfTokenFor, SESSION_TOKEN_PREFIX, sessionExpiry, unauthorized, type Origin } from './session.ts';
import type { SignedInAdmin } from './schema.ts';
import type { Backoff, RateLimitStore } from '../../storage/ratelimit/store.ts';
import { claimAttempt, forgetFailures, hitLimit, peekLimit, rateLimitExceeded, recordFailure } from '../../storage/ratelimit/limiter.ts';
import { findAdminByEmail, recordAdminSignIn } from '../../storage/db/repositories/console/admins.ts';
import { findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import * as sessions from '../../storage/db/repositories/console/admin-sessions.ts';

const IP_ALLOWANCE_FACTOR = 10;

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
const addressLimit = (limit: RateLimitSettings): RateLimitSettings => ({
  max: limit.max * IP_ALLOWANCE_FACTOR,
  windowSec: limit.windowSec,
});
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
