// Authentication and rate limiting of /v1, through the shared limiter. Every request is
// authenticated first, from a grant kept in memory only while the node can prove it current (so
// revocation is immediate on every node; src/domain/auth/grant-cache.ts), then counted against its
// credential's window (with Redis, in the same round trip that checks the grant); errors after
// authentication count too.
// A request whose token fails (missing, malformed, unknown, revoked, expired or stale) counts
// against its client address, and once the address is over its limit such requests answer 429;
// a valid token is never refused because of its address's failures. The token lookup is one
// indexed read of a hash, so looking up before refusing costs little and keeps valid tokens
// working behind a shared address.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config, RateLimitSettings } from '../../config.ts';
import { PROGRAM_SCHEMA_PATH } from '../../formats/program/schema-file.ts';
import type { Actor } from '../../domain/auth/scopes.ts';
import { isIssuedAccessToken } from '../../domain/auth/secrets.ts';
import { authenticate, authenticateFromMemory } from '../../domain/auth/tokens.ts';
import { authenticateWithMarkers } from '../../domain/auth/authenticate-with-markers.ts';
import type { Context, SystemContext } from '../../domain/context.ts';
import { ServiceError, validationFailed } from '../../shared/errors.ts';
import type { WindowCount } from '../../storage/ratelimit/store.ts';
import { hitLimit, hitLimitNow, rateLimitExceeded, type LimitState } from '../../storage/ratelimit/limiter.ts';
import type { UsageRecorder } from '../../domain/console/usage-recorder.ts';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
  }
}

/** Parses `Authorization: Bearer <token>`; undefined when absent or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim());
  if (!match || !isIssuedAccessToken(match[1])) return undefined;
  return match[1];
}

/** The values of X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset. */
export function rateLimitHeaderValues(limit: RateLimitSettings, window: WindowCount): [string, string, string] {
  return [String(limit.max), String(Math.max(0, limit.max - window.count)), String(Math.ceil(window.resetAtMs / 1000))];
}

export function setRateLimitHeaders(reply: FastifyReply, limit: RateLimitSettings, window: WindowCount) {
  const [max, remaining, reset] = rateLimitHeaderValues(limit, window);
  reply.header('X-RateLimit-Limit', max);
  reply.header('X-RateLimit-Remaining', remaining);
  reply.header('X-RateLimit-Reset', reset);
}

/** The authentication failures that count against the client address. */
const FAILED_AUTHENTICATION = new Set(['unauthorized', 'token_revoked', 'token_stale']);

/**
 * Node keeps only the first of repeated `Authorization` headers in `request.headers`; which one a
 * proxy or another server would believe is anyone's guess, so more than one is refused.
 */
function authorizationHeaderCount(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === 'authorization') count++;
  return count;
}

export interface AuthOptions {
  config: Config;
  system: SystemContext;
  onRejected: (limiter: string) => void;
  /** counts each authenticated request per credential for the console's usage page */
  usage?: UsageRecorder;
}

/** An authenticated request's actor and its count against the credential's rate limit. */
export interface Authenticated {
  actor: Actor;
  state: LimitState;
}

export interface TokenAuthenticator {
  /**
   * Authenticates a bearer token and counts the request against its credential's limit, as every
   * /v1 request is: the grant from memory where it can be proved current, and with Redis in the
   * same round trip that reads the markers. Rejects with the ServiceError of a failed token (not
   * yet counted against the client's address: the onRequest hook does that).
   */
  (token: string | undefined): Promise<Authenticated>;
  /**
   * The same outcome without waiting, when memory alone gives it (SQLite's kept grants and the
   * in-process limiter); undefined otherwise, and then nothing was counted. Waiting for a promise
   * costs more than the rest of a warm read's checks.
   */
  fromMemory(token: string): Authenticated | undefined;
}

/** The authenticator of a deployment: with Redis markers, or from SQLite's kept grants and the in-process limiter. */
export function tokenAuthenticator(config: Config, system: SystemContext): TokenAuthenticator {
  const store = system.limiter;
  const limits = config.rateLimits;
  // With Redis, grants are kept in memory and checked against markers read with the request's count.
  const { grants, markers } = system;
  const marked = grants && markers && store.hitAndRead ? { ...system, grants, markers } : undefined;
  if (marked) {
    return Object.assign((token: string | undefined) => authenticateWithMarkers({ ctx: marked, input: { token, limit: limits.api } }), {
      fromMemory: () => undefined,
    });
  }
  return Object.assign(
    async (token: string | undefined) => {
      const actor = await authenticate({ ctx: system, input: { token } });
      return { actor, state: await hitLimit(store, 'api', actor.credentialId, limits.api, system.now()) };
    },
    {
      fromMemory: (token: string) => {
        if (!store.hitNow) return undefined;
        const actor = authenticateFromMemory(system, token);
        if (!actor) return undefined;
        return { actor, state: hitLimitNow(store, 'api', actor.credentialId, limits.api, system.now()) as LimitState };
      },
    },
  );
}

/**
 * Where src/http/warm-reads.ts leaves the authentication it already started for a request it
 * hands to Fastify: the hook takes it instead of authenticating (and counting) a second time.
 */
const STARTED = Symbol('authentication started before routing');
type StartedRequest = IncomingMessage & { [STARTED]?: Promise<Authenticated> };

export function handOverAuthentication(raw: IncomingMessage, started: Promise<Authenticated>) {
  (raw as StartedRequest)[STARTED] = started;
}

export function registerAuth(app: FastifyInstance, { config, system, onRejected, usage }: AuthOptions) {
  const store = system.limiter;
  const limits = config.rateLimits;
  const authenticateToken = tokenAuthenticator(config, system);

  const refuse = (state: LimitState, limiter: string): never => {
    onRejected(limiter);
    throw rateLimitExceeded(state.retryAfterSec);
  };

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // The matched route's pattern, so that a percent-encoded spelling of a /v1 path (`/%761/…`)
    // is authenticated too; the raw URL for unknown routes.
    const path = request.routeOptions.url ?? request.url;
    if (!(path.startsWith('/v1/') || path === '/v1' || path.startsWith('/v1?'))) return;
    // The one /v1 path that needs no credential: a format's JSON Schema, nothing of any organization.
    if (path === PROGRAM_SCHEMA_PATH) return;
    const started = (request.raw as StartedRequest)[STARTED];
    if (authorizationHeaderCount(request) > 1) {
      throw validationFailed([{ field: 'Authorization', message: 'must be sent once, not repeated' }]);
    }

    let authenticated: Authenticated;
    try {
      const token = started ? undefined : bearerToken(request.headers.authorization);
      authenticated = (token && authenticateToken.fromMemory(token)) || (await (started ?? authenticateToken(token)));
    } catch (err) {
      if (err instanceof ServiceError && FAILED_AUTHENTICATION.has(err.code)) {
        const state = await hitLimit(store, 'unauth', request.ip, limits.unauthenticated, system.now());
        setRateLimitHeaders(reply, state.limit, state.window);
        if (state.exceeded) refuse(state, 'unauthenticated');
      }
      throw err;
    }
    const { actor, state } = authenticated;
    request.actor = actor;
    setRateLimitHeaders(reply, state.limit, state.window);
    usage?.count(actor.credentialId, actor.organizationId, state.exceeded);
    if (state.exceeded) refuse(state, 'api');
  });
}

/** The domain context of an authenticated /v1 request. */
export function requestContext(system: SystemContext, request: FastifyRequest): Context {
  if (!request.actor) throw new ServiceError('unauthorized', 'The bearer token is missing, malformed or invalid.');
  return { ...system, actor: request.actor };
}
