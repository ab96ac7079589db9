// Authentication and rate limiting of /v1. Every request is authenticated (the credential's state
// is re-read, so revocation is immediate on every node), then counted against its credential's
// window; errors after authentication count too. Requests that fail authentication are counted
// per client address, and an address over its limit is refused before any token lookup, which
// keeps token guessing slow.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config, RateLimitSettings } from '../../config.ts';
import type { Actor } from '../../domain/auth/scopes.ts';
import { authenticate, bearerToken } from '../../domain/auth/tokens.ts';
import type { Context, SystemContext } from '../../domain/context.ts';
import { ServiceError } from '../../domain/errors.ts';
import { retryAfterSec, type RateLimitStore, type WindowCount } from '../../storage/ratelimit/store.ts';
import type { UsageRecorder } from '../../domain/console/usage.ts';

function sweep(map: Map<string, number>, now: number) {
  for (const [key, until] of map) if (until <= now) map.delete(key);
}

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
  }
}

export function setRateLimitHeaders(reply: FastifyReply, limit: RateLimitSettings, window: WindowCount) {
  reply.header('X-RateLimit-Limit', String(limit.max));
  reply.header('X-RateLimit-Remaining', String(Math.max(0, limit.max - window.count)));
  reply.header('X-RateLimit-Reset', String(Math.ceil(window.resetAtMs / 1000)));
}

export function rateLimitExceeded(retryAfter: number) {
  return new ServiceError('rate_limit_exceeded', `Rate limit exceeded; retry in ${retryAfter} s.`, [{ retryAfterSec: retryAfter }]);
}

export interface AuthOptions {
  config: Config;
  system: SystemContext;
  store: RateLimitStore;
  onRejected: (limiter: string) => void;
  /** counts each authenticated request per credential for the console's usage page */
  usage?: UsageRecorder;
}

export function registerAuth(app: FastifyInstance, { config, system, store, onRejected, usage }: AuthOptions) {
  const limits = config.rateLimits;
  // Addresses known to be over their failed-authentication limit, so they are refused without a
  // token lookup or a store round trip until their window ends.
  const blockedUntil = new Map<string, number>();

  const refuse = (reply: FastifyReply, limit: RateLimitSettings, window: WindowCount, limiter: string): never => {
    const retryAfter = retryAfterSec(window, system.now());
    reply.header('Retry-After', String(retryAfter));
    onRejected(limiter);
    throw rateLimitExceeded(retryAfter);
  };

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // The matched route's pattern, so that a percent-encoded spelling of a /v1 path (`/%761/…`)
    // is authenticated too; the raw URL for unknown routes.
    const path = request.routeOptions.url ?? request.url;
    if (!(path.startsWith('/v1/') || path === '/v1' || path.startsWith('/v1?'))) return;
    const address = request.ip;
    const blocked = blockedUntil.get(address);
    if (blocked !== undefined) {
      if (blocked > system.now()) {
        const window = { count: limits.unauthenticated.max + 1, resetAtMs: blocked };
        setRateLimitHeaders(reply, limits.unauthenticated, window);
        refuse(reply, limits.unauthenticated, window, 'unauthenticated');
      }
      blockedUntil.delete(address);
    }

    let actor: Actor;
    try {
      actor = await authenticate({ ctx: system, input: { token: bearerToken(request.headers.authorization) } });
    } catch (err) {
      // Only unknown or malformed tokens look like guessing; a revoked or stale token is a real
      // one, and its client just needs a new token.
      if (err instanceof ServiceError && err.code === 'unauthorized') {
        const window = await store.hit(`unauth:${address}`, limits.unauthenticated.windowSec);
        setRateLimitHeaders(reply, limits.unauthenticated, window);
        if (window.count > limits.unauthenticated.max) {
          if (blockedUntil.size > 10_000) sweep(blockedUntil, system.now());
          blockedUntil.set(address, window.resetAtMs);
          refuse(reply, limits.unauthenticated, window, 'unauthenticated');
        }
      }
      throw err;
    }
    request.actor = actor;
    const window = await store.hit(`api:${actor.credentialId}`, limits.api.windowSec);
    setRateLimitHeaders(reply, limits.api, window);
    const limited = window.count > limits.api.max;
    usage?.count(actor.credentialId, actor.organizationId, limited);
    if (limited) refuse(reply, limits.api, window, 'api');
  });
}

/** The domain context of an authenticated /v1 request. */
export function requestContext(system: SystemContext, request: FastifyRequest): Context {
  if (!request.actor) throw new ServiceError('unauthorized', 'The bearer token is missing, malformed or invalid.');
  return { ...system, actor: request.actor };
}
