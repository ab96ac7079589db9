// The client-credentials grant and the access-token checks.
import { randomUUID } from 'node:crypto';
import type { BaseContext, SystemContext } from '../context.ts';
import { OAuthError, ServiceError } from '../../shared/errors.ts';
import { TOKEN_FIELD_MAX_LENGTH, type TokenRequest, type TokenResponse } from './schema.ts';
import { scopesFor, type AccessLevel, type Actor } from './scopes.ts';
import { hashSecret, isIssuedClientId, newAccessToken, secretMatches } from './secrets.ts';
import type { CredentialRecord } from '../../storage/db/repositories/auth/credentials.ts';
import { findCredentialByClientId } from '../../storage/db/repositories/auth/credentials.ts';
import { findGrantByTokenHash, insertAccessToken, type TokenGrant } from '../../storage/db/repositories/auth/access-tokens.ts';
import type { GrantCache } from './grant-cache.ts';
import { touchCredential } from '../../storage/db/repositories/auth/credentials.ts';

/** The fields the request must carry, checked before anything else (so rate limiting can key on client_id). */
export function parseTokenRequest(body: unknown): { clientId: string; clientSecret: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthError('invalid_request', 'The body must be a JSON object.');
  }
  // Unchecked until here: each field may be anything.
  const fields = body as { [K in keyof TokenRequest]?: unknown };
  const { grant_type, client_id, client_secret } = fields;
  const missing = (['grant_type', 'client_id', 'client_secret'] as const).filter((k) => {
    const v = fields[k];
    return typeof v !== 'string' || v.length === 0;
  });
  if (missing.length > 0) {
    throw new OAuthError('invalid_request', `Missing or invalid field: ${missing.join(', ')}.`);
  }
  const tooLong = (['client_id', 'client_secret'] as const).find((k) => (fields[k] as string).length > TOKEN_FIELD_MAX_LENGTH);
  if (tooLong) {
    throw new OAuthError('invalid_request', `${tooLong}: must be at most ${TOKEN_FIELD_MAX_LENGTH} characters.`);
  }
  if (grant_type !== 'client_credentials') {
    throw new OAuthError('invalid_request', 'grant_type must be client_credentials.');
  }
  return { clientId: client_id as string, clientSecret: client_secret as string };
}

/** The one answer to every failed client authentication, so the endpoint does not tell which client IDs exist. */
export const invalidClient = () => new OAuthError('invalid_client', 'Client authentication failed.');

/**
 * The credential a token request names, when it may be issued tokens here: a client ID of the
 * issued form (anything else is refused without a lookup), known, unrevoked and of this region.
 * Looked up before its secret is checked so that the caller can limit guesses per client
 * (src/http/routes/oauth/token.ts).
 */
export async function findClient({ ctx, input }: { ctx: BaseContext; input: { clientId: string } }): Promise<CredentialRecord | undefined> {
  if (!isIssuedClientId(input.clientId)) return undefined;
  const credential = await findCredentialByClientId(ctx.db.kysely, input.clientId);
  return credential && credential.revokedAt === null && credential.region === ctx.region ? credential : undefined;
}

/** Whether `secret` is the credential's, in constant time; without a credential, the same work and false. */
export function clientSecretMatches(credential: CredentialRecord | undefined, secret: string): credential is CredentialRecord {
  const matches = secretMatches(secret, credential?.secretHash ?? '0'.repeat(64));
  return credential !== undefined && matches;
}

/** Issues an access token to an authenticated credential. */
export async function issueToken({ ctx, input }: { ctx: SystemContext; input: { credential: CredentialRecord } }): Promise<TokenResponse> {
  const { credential } = input;
  const now = ctx.now();
  const accessToken = newAccessToken();
  const scopes = scopesFor(credential.accessLevel as AccessLevel).join(' ');
  await insertAccessToken(ctx.db.kysely, {
    id: randomUUID(),
    tokenHash: hashSecret(accessToken),
    credentialId: credential.id,
    organizationId: credential.organizationId,
    accessLevel: credential.accessLevel,
    scopes,
    region: credential.region,
    issuedAt: now,
    expiresAt: now + ctx.tokenTtlSec * 1000,
  });
  return { access_token: accessToken, token_type: 'Bearer', expires_in: ctx.tokenTtlSec, scope: scopes };
}

/** The refusal of a missing, malformed or unknown token. */
export const unauthorized = () => new ServiceError('unauthorized', 'The bearer token is missing, malformed or invalid.');

/**
 * Resolves a bearer token to the actor it speaks for. The token's grant (its credential's state and
 * its organization's plan and data version) is read from the database, or, on SQLite, taken from
 * `grants` while the database's change stamp proves nothing was committed since it was read
 * (grant-cache.ts); so revocation and access changes take effect at once.
 */
export async function authenticate({
  ctx,
  input,
}: {
  ctx: BaseContext & { grants?: GrantCache };
  input: { token: string | undefined };
}): Promise<Actor> {
  if (!input.token) throw unauthorized();
  const tokenHash = hashSecret(input.token);
  const stamp = ctx.grants ? ctx.db.changeStamp?.() : undefined;
  const cached = stamp === undefined ? undefined : ctx.grants?.get(tokenHash);
  let grant = cached?.proof === stamp ? cached?.grant : undefined;
  if (!grant) {
    grant = await readGrant(ctx, tokenHash);
    if (grant && stamp !== undefined) ctx.grants?.set(tokenHash, { grant, proof: stamp });
  }
  return actorOfGrant(ctx, grant);
}

/**
 * authenticate() when memory alone can answer, with nothing to wait for: the token's grant is
 * kept and proved current by the change stamp (SQLite), it admits the token, and the credential
 * was touched within the minute. Otherwise undefined, and authenticate() gives the answer
 * (refusals included), so both always agree.
 */
export function authenticateFromMemory(ctx: BaseContext & { grants?: GrantCache }, token: string): Actor | undefined {
  const stamp = ctx.grants ? ctx.db.changeStamp?.() : undefined;
  if (stamp === undefined) return undefined;
  const cached = ctx.grants?.get(hashSecret(token));
  if (!cached || cached.proof !== stamp) return undefined;
  return admits(ctx, cached.grant) === undefined && !needsTouch(ctx, cached.grant) ? actorOf(cached.grant) : undefined;
}

/** The grant of a token, by the token's hash, from the database. */
export function readGrant(ctx: BaseContext, tokenHash: string): Promise<TokenGrant | undefined> {
  return findGrantByTokenHash(ctx.db.kysely, tokenHash);
}

/** Why a grant does not admit its token (unknown, another region's, revoked, expired, stale), or undefined when it does. */
function admits(ctx: BaseContext, grant: TokenGrant | undefined): ServiceError | undefined {
  if (!grant || grant.tokenRegion !== ctx.region) return unauthorized();
  if (grant.revokedAt !== null) {
    return new ServiceError('token_revoked', 'The credential that issued this token was revoked.');
  }
  if (grant.expiresAt <= ctx.now()) return new ServiceError('token_stale', 'The token has expired; request a new one.');
  if (grant.tokenAccessLevel !== grant.credentialAccessLevel || grant.accessLevelChangedAt > grant.issuedAt) {
    return new ServiceError('token_stale', "The credential's access changed; request a new token.");
  }
  return undefined;
}

/** A credential's use is recorded at most once a minute. */
const needsTouch = (ctx: BaseContext, grant: TokenGrant) => grant.lastUsedAt === null || grant.lastUsedAt < ctx.now() - 60_000;

/**
 * The actor a token's grant speaks for, or the error that refuses it: unknown, another region's,
 * revoked, expired, or issued before its credential's access changed. Records the credential's
 * use at most once a minute.
 */
export async function actorOfGrant(ctx: BaseContext, grant: TokenGrant | undefined): Promise<Actor> {
  const refusal = admits(ctx, grant);
  if (refusal) throw refusal;
  const admitted = grant as TokenGrant;
  if (needsTouch(ctx, admitted)) {
    const previous = admitted.lastUsedAt;
    const now = ctx.now();
    // A grant kept in memory remembers the touch, so the next requests of the minute do not write.
    admitted.lastUsedAt = now;
    // Recorded beside the answer, not before it: on SQLite this write waits its turn behind any
    // other organization's open transaction (one writer), and a read must not wait (issue 36).
    // Failed (the database went away), the next request tries again.
    touchCredential(ctx.db.kysely, admitted.credentialId, now).catch(() => {
      if (admitted.lastUsedAt === now) admitted.lastUsedAt = previous;
    });
  }
  return actorOf(admitted);
}

function actorOf(grant: TokenGrant): Actor {
  let sets = grantSets.get(grant);
  if (!sets) {
    sets = { scopes: new Set(grant.scopes.split(' ')), plan: new Set(grant.plan.split(',')) };
    grantSets.set(grant, sets);
  }
  return {
    organizationId: grant.organizationId,
    credentialId: grant.credentialId,
    scopes: sets.scopes,
    plan: sets.plan,
    dataVersions: grant.dataVersions,
  };
}

/** The scopes and plan of a grant kept in memory, parsed once rather than on each of its requests. */
const grantSets = new WeakMap<TokenGrant, { scopes: ReadonlySet<string>; plan: ReadonlySet<string> }>();
