// Resolving the console's session token, on every admin API request (see session.ts).
import type { SystemContext } from '../context.ts';
import { hashSecret } from '../auth/secrets.ts';
import { csrfTokenFor, SESSION_TOKEN_PREFIX, sessionExpiry, unauthorized } from './session.ts';
import type { SignedInAdmin } from './schema.ts';
import { findAdmin } from '../../storage/db/repositories/console/admins.ts';
import { findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import * as sessions from '../../storage/db/repositories/console/admin-sessions.ts';

/** The signed-in administrator of a session token; `unauthorized` if it is unknown or has ended. */
export async function resolveSession({ ctx, input }: { ctx: SystemContext; input: { token: string | undefined } }): Promise<SignedInAdmin> {
  const settings = ctx.session;
  const token = input.token;
  if (!token?.startsWith(SESSION_TOKEN_PREFIX) || token.length > 200) throw unauthorized('Sign in to use the console.');
  const now = ctx.now();
  const record = await sessions.findSessionByTokenHash(ctx.db.kysely, hashSecret(token));
  if (!record || sessionExpiry(record, settings.idleMs) <= now) throw unauthorized('The session has ended; sign in again.');
  const [admin, org] = await Promise.all([
    findAdmin(ctx.db.kysely, record.adminId),
    findOrganization(ctx.db.kysely, record.organizationId),
  ]);
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
