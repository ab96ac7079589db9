// POST /oauth/token: the OAuth 2.0 client-credentials grant. JSON only; its own error body.
// A well-formed request naming a usable credential with its right secret is answered whatever its
// address sent before (clients behind one NAT share an address; issue 35 item 3). The limits, all
// through the shared limiter:
// - failed requests (client ID unknown, not of the issued form, revoked; wrong secret) count per
//   client address; past that limit failures answer 429 instead of 401 (after their check, so the
//   answer does not tell which client IDs exist);
// - wrong secrets for a known client ID also count per address and client ID, and past that limit
//   the secrets of that client from that address are refused before they are checked, so no
//   address can keep guessing one client's secret;
// - the credential's own budget is charged only once its secret has been verified, so someone who
//   merely knows a client ID cannot use up its owner's tokens.
// Malformed bodies (400) count per address in the malformed-request limit (src/http/plugins/
// malformed-limit.ts), which refuses them here only once the body (at most 4 KiB) is read.
import type { FastifyInstance } from 'fastify';
import { TokenRequest, TokenResponse } from '../../../domain/auth/schema.ts';
import { clientSecretMatches, findClient, invalidClient, issueToken, parseTokenRequest } from '../../../domain/auth/tokens.ts';
import type { RouteDeps } from '../deps.ts';
import { setRateLimitHeaders } from '../../plugins/auth.ts';
import { described } from '../../schemas/common.ts';
import { hitLimit, peekLimit, rateLimitExceeded } from '../../../storage/ratelimit/limiter.ts';

/** The largest token request body: three short strings fit many times over. */
export const TOKEN_BODY_LIMIT_BYTES = 4096;

/** One refusal for both failure limits, so that it does not tell whether the client ID is known. */
const TOO_MANY_FAILURES = 'Too many failed token requests from this address';

const oauthError = (description: string) => ({ description, $ref: 'OAuthErrorBody#' });

export default function tokenRoute(app: FastifyInstance, { config, system, metrics }: RouteDeps) {
  const store = system.limiter;
  app.post(
    '/oauth/token',
    {
      config: { oauthErrors: true, malformedLimitAfterBody: true },
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
      const credential = await findClient({ ctx: system, input });
      // Guesses are limited per address and client: one address's guesses at a client's secret
      // cannot lock that client out elsewhere, nor lock other clients out at that address.
      const guesses = credential && `${credential.id} ${address}`;
      if (guesses) {
        const blocked = await peekLimit(store, 'token-guess', guesses, failures, system.now());
        if (blocked.exceeded) {
          setRateLimitHeaders(reply, blocked.limit, blocked.window);
          metrics.rateLimitRejections.inc({ limiter: 'token_failure' });
          throw rateLimitExceeded(blocked.retryAfterSec, TOO_MANY_FAILURES);
        }
      }
      if (!clientSecretMatches(credential, input.clientSecret)) {
        const counted = await hitLimit(store, 'token-failure', address, failures, system.now());
        const guessed = guesses ? await hitLimit(store, 'token-guess', guesses, failures, system.now()) : undefined;
        const over = counted.exceeded ? counted : guessed?.exceeded ? guessed : undefined;
        setRateLimitHeaders(reply, counted.limit, (over ?? counted).window);
        if (over) {
          metrics.rateLimitRejections.inc({ limiter: 'token_failure' });
          throw rateLimitExceeded(over.retryAfterSec, TOO_MANY_FAILURES);
        }
        throw invalidClient();
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
