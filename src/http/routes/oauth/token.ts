// POST /oauth/token: the OAuth 2.0 client-credentials grant. JSON only; its own error body.
// Two limits, both through the shared limiter: failed requests (unknown client, wrong secret,
// revoked) count per client address, and an address over that limit is refused before any secret
// is checked; the credential's own budget is charged only once its secret has been verified, so
// someone who merely knows a client ID cannot use up its owner's tokens.
import type { FastifyInstance } from 'fastify';
import { TokenRequest, TokenResponse } from '../../../domain/auth/schema.ts';
import { authenticateClient, issueToken, parseTokenRequest } from '../../../domain/auth/tokens.ts';
import { OAuthError } from '../../../domain/errors.ts';
import type { RouteDeps } from '../deps.ts';
import { setRateLimitHeaders } from '../../plugins/auth.ts';
import { described } from '../../schemas/common.ts';
import { hitLimit, peekLimit, rateLimitExceeded } from '../../../storage/ratelimit/limiter.ts';

/** The largest token request body: three short strings fit many times over. */
export const TOKEN_BODY_LIMIT_BYTES = 4096;

const oauthError = (description: string) => ({ description, $ref: 'OAuthErrorBody#' });

export default function tokenRoute(app: FastifyInstance, { config, system, metrics }: RouteDeps) {
  const store = system.limiter;
  app.post(
    '/oauth/token',
    {
      config: { oauthErrors: true },
      bodyLimit: TOKEN_BODY_LIMIT_BYTES,
      schema: {
        operationId: 'createToken',
        tags: ['auth'],
        security: [],
        summary: 'Exchange client credentials for an access token',
        description:
          "The OAuth 2.0 client-credentials grant (RFC 6749 section 4.4): a JSON body with grant_type, client_id and client_secret answers a bearer access token that lives 3600 seconds. Errors use the OAuth error body. Failed attempts count per client address; the credential's own budget is charged only once its secret is verified.",
        // Documented, not enforced by AJV: the handler checks the body itself so that every
        // failure answers with the OAuth error body (invalid_request), as the spec requires.
        body: TokenRequest,
        response: {
          200: described(TokenResponse, 'The access token, its lifetime and the granted scopes.'),
          400: oauthError('invalid_request: grant_type wrong, a required field missing, or client_id or client_secret over 128 characters'),
          401: oauthError('invalid_client: client ID or secret wrong, or credential revoked'),
          429: oauthError('temporarily_unavailable: token endpoint rate limit exceeded; Retry-After says when to retry'),
          500: oauthError('server_error: an unexpected failure (the description quotes the request ID)'),
          503: oauthError('temporarily_unavailable: authorization server temporarily unavailable'),
        },
      },
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const input = parseTokenRequest(request.body);
      const { token: budget, unauthenticated: failures } = config.rateLimits;
      const address = request.ip;
      const blocked = await peekLimit(store, 'token-failure', address, failures, system.now());
      if (blocked.exceeded) {
        setRateLimitHeaders(reply, blocked.limit, blocked.window);
        metrics.rateLimitRejections.inc({ limiter: 'token_failure' });
        throw rateLimitExceeded(blocked.retryAfterSec, 'Too many failed token requests from this address');
      }
      let credential;
      try {
        credential = await authenticateClient({ ctx: system, input });
      } catch (err) {
        if (err instanceof OAuthError && err.error === 'invalid_client') {
          const counted = await hitLimit(store, 'token-failure', address, failures, system.now());
          setRateLimitHeaders(reply, counted.limit, counted.window);
        }
        throw err;
      }
      const charged = await hitLimit(store, 'token', credential.id, budget, system.now());
      setRateLimitHeaders(reply, charged.limit, charged.window);
      if (charged.exceeded) {
        metrics.rateLimitRejections.inc({ limiter: 'token' });
        throw rateLimitExceeded(charged.retryAfterSec, 'Too many token requests for this client');
      }
      const token = await issueToken({ ctx: system, input: { credential } });
      reply.header('Cache-Control', 'no-store');
      reply.header('Pragma', 'no-cache');
      return token;
    },
  );
}
