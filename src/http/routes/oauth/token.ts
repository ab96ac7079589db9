// POST /oauth/token: the OAuth 2.0 client-credentials grant. JSON only; its own error body;
// rate limited per credential (client_id) separately from /v1.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { issueToken, parseTokenRequest } from '../../../domain/auth/tokens.ts';
import { OAuthError } from '../../../domain/errors.ts';
import type { RouteDeps } from '../deps.ts';
import { setRateLimitHeaders } from '../../plugins/auth.ts';
import { retryAfterSec } from '../../../storage/ratelimit/store.ts';

const TokenBody = Type.Object({
  grant_type: Type.Literal('client_credentials'),
  client_id: Type.String(),
  client_secret: Type.String(),
});

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds (3600).' }),
  scope: Type.String({ description: 'Granted scopes separated by spaces.' }),
});

const oauthError = (description: string) => ({ description, $ref: 'OAuthErrorBody#' });

export default function tokenRoute(app: FastifyInstance, { config, system, store, metrics }: RouteDeps) {
  app.post(
    '/oauth/token',
    {
      config: { oauthErrors: true },
      schema: {
        tags: ['auth'],
        summary: 'Exchange client credentials for an access token',
        // Documented, not enforced by AJV: the handler checks the body itself so that every
        // failure answers with the OAuth error body (invalid_request), as the spec requires.
        body: TokenBody,
        response: {
          200: TokenResponse,
          400: oauthError('invalid_request: grant_type wrong or a required field missing'),
          401: oauthError('invalid_client: client ID or secret wrong, or credential revoked'),
          429: oauthError('temporarily_unavailable: token endpoint rate limit exceeded'),
          503: oauthError('temporarily_unavailable: authorization server temporarily unavailable'),
        },
      },
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const input = parseTokenRequest(request.body);
      const limit = config.rateLimits.token;
      const window = await store.hit(`token:${input.clientId}`, limit.windowSec);
      setRateLimitHeaders(reply, limit, window);
      if (window.count > limit.max) {
        metrics.rateLimitRejections.inc({ limiter: 'token' });
        throw new OAuthError(
          'temporarily_unavailable',
          'Too many token requests for this client; retry later.',
          retryAfterSec(window, system.now()),
        );
      }
      const token = await issueToken({ ctx: { ...system, tokenTtlSec: config.tokenTtlSec }, input });
      reply.header('Cache-Control', 'no-store');
      reply.header('Pragma', 'no-cache');
      return token;
    },
  );
}
