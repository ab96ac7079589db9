// Console sessions: what signing in, resolving the token and signing out share. A session ends at
// the first of: its absolute end (`maxMs` after sign-in), `idleMs` without a request, or sign-out.
// The token lives only with the administrator, out of reach of the console's scripts; the database
// keeps its SHA-256.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../../shared/errors.ts';
import type { AdminActor } from '../context.ts';
import type { SignedInAdmin } from './schema.ts';
import type { AdminSessionRecord } from '../../storage/db/repositories/console/admin-sessions.ts';

export const SESSION_TOKEN_PREFIX = 'cds_session_';

/** Where a request came from, for the audit log. */
export interface Origin {
  ip: string | null;
  userAgent: string | null;
}

export const sessionExpiry = (s: AdminSessionRecord, idleMs: number) => Math.min(s.expiresAt, s.lastSeenAt + idleMs);

/**
 * The CSRF token is derived from the session token, so it needs no storage and cannot be known
 * without the session token; the console reads it from the session answer and sends it with changes.
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

export const unauthorized = (message: string) => new ServiceError('unauthorized', message);

/** The signed-in administrator as the actor of console verbs and audit entries. */
export const adminActor = (session: SignedInAdmin, origin: Origin): AdminActor => ({
  type: 'admin',
  id: session.admin.id,
  label: session.admin.email,
  ...origin,
  organizationId: session.organization.id,
});
