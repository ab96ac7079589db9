// POST /oauth/token: the client-credentials grant. The client normally handles tokens itself
// (transport/token-cache.ts); `Auth` is for callers who want to see or use the token.
import { operations, type RequestTokenBody, type RequestTokenResponse } from '../generated/api.ts';
import { ComplianceApiError } from '../errors.ts';
import type { RequestSender, TokenSource } from '../transport/request-sender.ts';
import { jsonBody, withResponse, type WithResponse } from './operation.ts';

export type TokenRequester = (options?: { signal?: AbortSignal }) => Promise<WithResponse<RequestTokenResponse>>;

/** Token requests go through the sender, so the token endpoint's 429 and 503 are retried by the same rules. */
export function tokenRequester(sender: RequestSender, clientId: string, clientSecret: string): TokenRequester {
  const credentials: RequestTokenBody = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
  const { method, path } = operations.requestToken;
  return async (options) => {
    const { body, info } = await sender.send<RequestTokenResponse>({ method, path, body: jsonBody(credentials), signal: options?.signal });
    if (typeof body?.access_token !== 'string' || !(typeof body.expires_in === 'number' && body.expires_in > 0)) {
      throw new ComplianceApiError({
        status: info.status,
        code: 'unexpected_response',
        message: 'the token response has no access_token or expires_in',
        details: [],
        requestId: info.requestId,
        headers: info.headers,
      });
    }
    return withResponse(body, info);
  };
}

export class Auth {
  readonly #tokens: TokenSource;
  readonly #request: TokenRequester;

  constructor(tokens: TokenSource, request: TokenRequester) {
    this.#tokens = tokens;
    this.#request = request;
  }

  /** The cached access token, requested or renewed first when needed. */
  getAccessToken(options?: { signal?: AbortSignal }): Promise<string> {
    return this.#tokens.get(options?.signal);
  }

  /** A new token straight from POST /oauth/token, not cached (counts against the token endpoint's 10 requests a minute). */
  requestToken(options?: { signal?: AbortSignal }): Promise<WithResponse<RequestTokenResponse>> {
    return this.#request(options);
  }
}
