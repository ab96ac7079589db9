// Malformed requests count against their client address, through the shared limiter: every 400
// answered to a request without a valid credential or console session counts (`malformed`), and
// once the address is over its limit, such requests to the routes that take input are refused
// with 429 before their body is read, for the rest of the window.
//
// Only requests without a credential count, as with failed authentications (src/http/plugins/
// auth.ts): a request with a valid token or session already counts against its credential's own
// limit whatever its answer, and is never refused because of what its address sent (clients behind
// one NAT or load balancer share an address). Unauthenticated /v1 and console requests are
// refused 401 before their body is read, so in practice this limits the routes open to anyone:
// console sign-in and the token endpoint (docs/security.md, "Malformed requests").
//
// A route with `malformedLimitAfterBody` (the token endpoint, whose body is at most 4 KiB) is not
// refused before its body is read: the refusal is kept on the request, and the error handler
// answers it instead of a 400, so a well-formed request from the address is still answered.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { SystemContext } from '../../domain/context.ts';
import type { RateLimitExceeded } from '../../shared/errors.ts';
import { hitLimit, peekLimit, rateLimitExceeded } from '../../storage/ratelimit/limiter.ts';
import { setRateLimitHeaders } from './auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** the malformed-request limit's refusal, answered instead of a 400 (routes with malformedLimitAfterBody) */
    malformedRefusal?: () => RateLimitExceeded;
  }
}

const SCOPE = 'malformed';

const hasCredential = (request: FastifyRequest) => request.actor !== undefined || request.consoleSession !== undefined;

/** Routes whose body or query string is validated: the ones a malformed request is sent to. */
function takesInput(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema;
  return schema?.body !== undefined || schema?.querystring !== undefined;
}

export interface MalformedLimitOptions {
  config: Config;
  system: SystemContext;
  onRejected: (limiter: string) => void;
}

export function registerMalformedLimit(app: FastifyInstance, { config, system, onRejected }: MalformedLimitOptions) {
  const store = system.limiter;
  const limit = config.rateLimits.malformed;

  // After every onRequest hook (authentication, the console session), before the body is read.
  app.addHook('preParsing', async (request, reply, payload) => {
    if (hasCredential(request) || !takesInput(request)) return payload;
    const state = await peekLimit(store, SCOPE, request.ip, limit, system.now());
    if (!state.exceeded) return payload;
    const refuse = () => {
      setRateLimitHeaders(reply, state.limit, state.window);
      onRejected(SCOPE);
      return rateLimitExceeded(state.retryAfterSec, 'Too many malformed requests from this address');
    };
    if (!request.routeOptions.config.malformedLimitAfterBody) throw refuse();
    request.malformedRefusal = refuse;
    return payload;
  });

  // Counted before the answer leaves, so that it carries the address's remaining allowance.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 400 || hasCredential(request)) return payload;
    try {
      const state = await hitLimit(store, SCOPE, request.ip, limit, system.now());
      setRateLimitHeaders(reply, state.limit, state.window);
    } catch (err) {
      // The request is answered 400 either way; a store that cannot count only loses this count.
      request.log.warn({ err: { message: (err as Error).message } }, 'malformed-request limit: not counted');
    }
    return payload;
  });
}
