// Access tokens: requested on first use, kept until shortly before they expire, and renewed by
// one token request however many callers need a new one at the same moment (the token
// endpoint allows 10 requests a minute per credential, so a burst must not become a stampede).
// With a token store (the caller's: a file, a keychain, a shared cache) a token outlives the
// process: the first renewal asks the store before the token endpoint, and every new token is
// saved to it. The store can never break a call: its failures count as "nothing stored".
import { AuthenticationError } from '../errors.ts';
import type { RequestTokenResponse } from '../generated/api.ts';
import type { TokenSource } from './request-sender.ts';
import { raceAbort } from './timing.ts';

/** An access token as a token store keeps it. */
export interface StoredToken {
  /** the bearer token */
  accessToken: string;
  /** when the token expires, in epoch milliseconds (wall clock) */
  expiresAt: number;
  /** the granted scopes, separated by spaces */
  scope: string;
  /** `Bearer` */
  tokenType: string;
  /**
   * when the token was requested, in epoch milliseconds. Optional: with it, the refresh skew of a
   * loaded token is capped at half its lifetime, as for a token the client requested itself.
   */
  issuedAt?: number;
}

/**
 * Keeps access tokens between clients (and processes). `load` is called once, on the client's
 * first need of a token; `save` with every token the client obtains; `clear` (optional) when the
 * credential turns out to be revoked. Each may be synchronous or return a promise.
 */
export interface TokenStore {
  load(): Promise<StoredToken | undefined> | StoredToken | undefined;
  save(token: StoredToken): Promise<void> | void;
  clear?(): Promise<void> | void;
}

export type TokenStoreOperation = 'load' | 'save' | 'clear';

/** Told about a token store's failure; the call goes on as if nothing were stored. */
export type TokenStoreErrorHandler = (error: unknown, operation: TokenStoreOperation) => void;

export interface TokenCacheOptions {
  /** renew this long before expiry; capped at half the token's lifetime */
  refreshSkewMs: number;
  /** a monotonic clock in milliseconds */
  now?: () => number;
  /** the wall clock in epoch milliseconds, for the expiry of stored tokens */
  wallClock?: () => number;
  store?: TokenStore;
  onStoreError?: TokenStoreErrorHandler;
}

export class TokenCache implements TokenSource {
  #current: { value: string; renewAt: number } | undefined;
  #pending: Promise<string> | undefined;
  /** whether the store has been asked (it is asked once, by the first renewal) */
  #loaded = false;
  readonly #request: () => Promise<RequestTokenResponse>;
  readonly #skewMs: number;
  readonly #now: () => number;
  readonly #wallClock: () => number;
  readonly #store: TokenStore | undefined;
  readonly #onStoreError: TokenStoreErrorHandler | undefined;

  constructor(request: () => Promise<RequestTokenResponse>, options: TokenCacheOptions) {
    this.#request = request;
    this.#skewMs = options.refreshSkewMs;
    this.#now = options.now ?? (() => performance.now());
    this.#wallClock = options.wallClock ?? (() => Date.now());
    this.#store = options.store;
    this.#onStoreError = options.onStoreError;
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

  /** The credential behind `token` was revoked: forget the token, and empty the store. */
  async revoked(token: string): Promise<void> {
    this.invalidate(token);
    await this.#clearStore();
  }

  #renew(): Promise<string> {
    this.#pending ??= (async () => {
      try {
        if (this.#store && !this.#loaded) {
          this.#loaded = true;
          const stored = await this.#load();
          if (stored) {
            this.#current = stored;
            return stored.value;
          }
        }
        const requestedAt = this.#now();
        const issuedAt = this.#wallClock();
        let token: RequestTokenResponse;
        try {
          token = await this.#request();
        } catch (err) {
          // The credential itself is refused (wrong secret, revoked): a stored token of it is worthless.
          if (err instanceof AuthenticationError && err.code === 'invalid_client') await this.#clearStore();
          throw err;
        }
        const lifetimeMs = token.expires_in * 1000;
        this.#current = { value: token.access_token, renewAt: requestedAt + lifetimeMs - Math.min(this.#skewMs, lifetimeMs / 2) };
        await this.#save({
          accessToken: token.access_token,
          expiresAt: issuedAt + lifetimeMs,
          scope: token.scope,
          tokenType: token.token_type,
          issuedAt,
        });
        return token.access_token;
      } finally {
        this.#pending = undefined;
      }
    })();
    return this.#pending;
  }

  /** The stored token when it is well-formed and not within the refresh skew of expiring. */
  async #load(): Promise<{ value: string; renewAt: number } | undefined> {
    let stored: StoredToken | undefined;
    try {
      stored = await this.#store!.load();
    } catch (err) {
      this.#report(err, 'load');
      return undefined;
    }
    if (stored === undefined || stored === null) return undefined;
    if (!isStoredToken(stored)) {
      this.#report(new TypeError('the token store returned something that is not a stored token'), 'load');
      return undefined;
    }
    const lifetimeMs = stored.issuedAt !== undefined && stored.issuedAt < stored.expiresAt ? stored.expiresAt - stored.issuedAt : Infinity;
    const renewAtWall = stored.expiresAt - Math.min(this.#skewMs, lifetimeMs / 2);
    const leftMs = renewAtWall - this.#wallClock();
    if (!(leftMs > 0)) return undefined;
    return { value: stored.accessToken, renewAt: this.#now() + leftMs };
  }

  async #save(token: StoredToken): Promise<void> {
    if (!this.#store) return;
    try {
      await this.#store.save(token);
    } catch (err) {
      this.#report(err, 'save');
    }
  }

  async #clearStore(): Promise<void> {
    if (!this.#store || typeof this.#store.clear !== 'function') return;
    try {
      await this.#store.clear();
    } catch (err) {
      this.#report(err, 'clear');
    }
  }

  #report(error: unknown, operation: TokenStoreOperation): void {
    try {
      this.#onStoreError?.(error, operation);
    } catch {
      // A failing error handler must not break the call either.
    }
  }
}

function isStoredToken(value: unknown): value is StoredToken {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as Record<string, unknown>;
  return (
    typeof t.accessToken === 'string' &&
    t.accessToken !== '' &&
    typeof t.expiresAt === 'number' &&
    Number.isFinite(t.expiresAt) &&
    (t.issuedAt === undefined || (typeof t.issuedAt === 'number' && Number.isFinite(t.issuedAt)))
  );
}
