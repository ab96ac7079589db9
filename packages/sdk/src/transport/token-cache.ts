// Access tokens: requested on first use, kept until shortly before they expire, and renewed by
// one token request however many callers need a new one at the same moment (the token
// endpoint allows 10 requests a minute per credential, so a burst must not become a stampede).
import type { RequestTokenResponse } from '../generated/api.ts';
import type { TokenSource } from './request-sender.ts';
import { raceAbort } from './timing.ts';

export interface TokenCacheOptions {
  /** renew this long before expiry; capped at half the token's lifetime */
  refreshSkewMs: number;
  /** a monotonic clock in milliseconds */
  now?: () => number;
}

export class TokenCache implements TokenSource {
  #current: { value: string; renewAt: number } | undefined;
  #pending: Promise<string> | undefined;
  readonly #request: () => Promise<RequestTokenResponse>;
  readonly #skewMs: number;
  readonly #now: () => number;

  constructor(request: () => Promise<RequestTokenResponse>, options: TokenCacheOptions) {
    this.#request = request;
    this.#skewMs = options.refreshSkewMs;
    this.#now = options.now ?? (() => performance.now());
  }

  get(signal?: AbortSignal): Promise<string> {
    const current = this.#current;
    if (current && this.#now() < current.renewAt) return Promise.resolve(current.value);
    // A caller giving up does not cancel the shared renewal: the others still wait for it.
    return raceAbort(this.#renew(), signal);
  }

  invalidate(token: string): void {
    if (this.#current?.value === token) this.#current = undefined;
  }

  #renew(): Promise<string> {
    this.#pending ??= (async () => {
      try {
        const requestedAt = this.#now();
        const token = await this.#request();
        const lifetimeMs = token.expires_in * 1000;
        this.#current = { value: token.access_token, renewAt: requestedAt + lifetimeMs - Math.min(this.#skewMs, lifetimeMs / 2) };
        return token.access_token;
      } finally {
        this.#pending = undefined;
      }
    })();
    return this.#pending;
  }
}
