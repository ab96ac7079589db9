// The client: options checked once, one request sender and one token cache shared by every
// resource, so retries and token renewals are decided in one place.
import { REGION_BASE_URLS, isRegion, type Region } from './regions.ts';
import { Auth, tokenRequester } from './resources/auth.ts';
import { Controls } from './resources/controls.ts';
import { Events } from './resources/events.ts';
import { Evidence } from './resources/evidence.ts';
import { Frameworks } from './resources/frameworks.ts';
import type { ClientContext, WithResponse } from './resources/operation.ts';
import { rawRequest, type RawRequestInput } from './resources/raw-request.ts';
import { Policies } from './resources/policies.ts';
import { Program } from './resources/program.ts';
import { Tests } from './resources/tests.ts';
import { Vulnerabilities } from './resources/vulnerabilities.ts';
import { Jobs } from './resources/jobs.ts';
import { debugHooks, safeHooks, type Hooks } from './transport/hooks.ts';
import { RequestSender, type FetchLike } from './transport/request-sender.ts';
import { TokenCache, type TokenStore, type TokenStoreErrorHandler } from './transport/token-cache.ts';
import { userAgent } from './transport/user-agent.ts';
import { webhooks } from './webhooks/index.ts';

export interface ClientOptions extends Hooks {
  /** the credential's client ID (`cds_id_…`) */
  clientId: string;
  /** the credential's client secret (`cds_secret_…`); keep it out of browsers and version control */
  clientSecret: string;
  /** the region whose hosted service to use; give either this or `baseUrl` */
  region?: Region;
  /** the service's base URL (a self-hosted deployment, a proxy); give either this or `region` */
  baseUrl?: string;
  /**
   * the base URL of each region, for a platform that hosts the service in several regions; a
   * region missing here falls back to REGION_BASE_URLS
   */
  regionBaseUrls?: Partial<Record<Region, string>>;
  /** the fetch to use (default: the global fetch); tests and proxies inject their own */
  fetch?: FetchLike;
  /** retries after the first attempt of a call (default 3) */
  maxRetries?: number;
  /** time allowed for one attempt, until the whole answer is read (default 60,000 ms) */
  timeoutMs?: number;
  /** the cap of the first retry's random backoff, doubling per retry (default 500 ms) */
  retryBaseDelayMs?: number;
  /** the largest backoff (default 8,000 ms) */
  retryMaxDelayMs?: number;
  /** a Retry-After longer than this is not waited for; the error is thrown (default 60,000 ms, one rate-limit window) */
  maxRetryAfterMs?: number;
  /** renew the access token this long before it expires (default 60,000 ms; at most half its lifetime) */
  tokenRefreshSkewMs?: number;
  /**
   * keeps access tokens beyond this client (a file, a keychain, a shared cache): asked once, on
   * the first need of a token, and given every new token. It holds bearer tokens of the
   * credential, so it must be as private as the secret. Its failures never fail a call.
   */
  tokenStore?: TokenStore;
  /** told about each failure of `tokenStore` (default: ignored); the call goes on as if nothing were stored */
  onTokenStoreError?: TokenStoreErrorHandler;
  /**
   * your product token, put before the SDK's own in the User-Agent
   * (`my-app/2.1 compliance-data-sdk/0.2.0 node/24.0.0`)
   */
  userAgent?: string;
  /**
   * one line per attempt, answer and retry (method, URL, status, time, request ID; never a body or
   * a token): `true` writes them to console.error, a function receives them
   */
  debug?: boolean | ((line: string) => void);
}

export const DEFAULTS = {
  maxRetries: 3,
  timeoutMs: 60_000,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  tokenRefreshSkewMs: 60_000,
} as const;

export class ComplianceClient {
  /** webhook verification, without a client: `ComplianceClient.webhooks.verify(body, headers, secret)` */
  static readonly webhooks = webhooks;
  readonly baseUrl: string;
  readonly auth: Auth;
  readonly frameworks: Frameworks;
  readonly controls: Controls;
  readonly policies: Policies;
  readonly evidence: Evidence;
  readonly tests: Tests;
  readonly vulnerabilities: Vulnerabilities;
  /** bulk work the service accepted with 202 (an extension): `retrieve(id)` */
  readonly jobs: Jobs;
  /** the organization's program as one document: plan, apply, export (an extension of the service) */
  readonly program: Program;
  /** the change events feed (GET /v1/events): pages, walks and a follower that polls */
  readonly events: Events;
  /** webhook verification (the same as the `webhooks` export; needs no credentials) */
  readonly webhooks = webhooks;
  readonly #ctx: ClientContext;

  constructor(options: ClientOptions) {
    if (!options || typeof options.clientId !== 'string' || options.clientId === '') throw new TypeError('clientId is required');
    if (typeof options.clientSecret !== 'string' || options.clientSecret === '') throw new TypeError('clientSecret is required');
    this.baseUrl = resolveBaseUrl(options);
    const fetchImpl = options.fetch ?? globalFetch();
    const setting = (name: keyof typeof DEFAULTS) => {
      const value = options[name] ?? DEFAULTS[name];
      if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a number ≥ 0`);
      return value;
    };
    if (!Number.isInteger(setting('maxRetries'))) throw new TypeError('maxRetries must be a whole number');
    if (setting('timeoutMs') === 0) throw new TypeError('timeoutMs must be more than 0');

    for (const name of ['onRequest', 'onResponse', 'onRetry'] as const) {
      if (options[name] !== undefined && typeof options[name] !== 'function') throw new TypeError(`${name} must be a function`);
    }
    if (options.userAgent !== undefined && (typeof options.userAgent !== 'string' || /[\r\n]/.test(options.userAgent)))
      throw new TypeError('userAgent must be a string of one line');
    const hooks: Hooks[] = [options];
    const debug = debugHooks(options.debug);
    if (debug) hooks.push(debug);

    const sender = new RequestSender({
      userAgent: userAgent(options.userAgent),
      hooks: safeHooks(hooks),
      baseUrl: this.baseUrl,
      fetch: fetchImpl,
      maxRetries: setting('maxRetries'),
      timeoutMs: setting('timeoutMs'),
      baseDelayMs: setting('retryBaseDelayMs'),
      maxDelayMs: setting('retryMaxDelayMs'),
      maxRetryAfterMs: setting('maxRetryAfterMs'),
    });
    const requestToken = tokenRequester(sender, options.clientId, options.clientSecret);
    const store = options.tokenStore;
    if (
      store !== undefined &&
      (typeof store !== 'object' || store === null || typeof store.load !== 'function' || typeof store.save !== 'function')
    ) {
      throw new TypeError('tokenStore must have load() and save() methods');
    }
    if (store?.clear !== undefined && typeof store.clear !== 'function') throw new TypeError('tokenStore.clear must be a method');
    if (options.onTokenStoreError !== undefined && typeof options.onTokenStoreError !== 'function')
      throw new TypeError('onTokenStoreError must be a function');
    const tokens = new TokenCache(() => requestToken(), {
      refreshSkewMs: setting('tokenRefreshSkewMs'),
      store,
      onStoreError: options.onTokenStoreError,
    });
    const ctx: ClientContext = { sender, tokens };
    this.#ctx = ctx;
    this.auth = new Auth(tokens, requestToken);
    this.frameworks = new Frameworks(ctx);
    this.controls = new Controls(ctx);
    this.policies = new Policies(ctx);
    this.evidence = new Evidence(ctx);
    this.tests = new Tests(ctx);
    this.vulnerabilities = new Vulnerabilities(ctx);
    this.jobs = new Jobs(ctx);
    this.program = new Program(ctx);
    this.events = new Events(ctx);
  }

  /**
   * Any request to the service, with the token, retries, Idempotency-Key (for POST, PUT, PATCH and
   * DELETE) and hooks of the typed methods: `client.request('GET', '/v1/controls', { query: { status: ['compliant'] } })`.
   * The answer is the parsed JSON body, with `response` as on every result.
   */
  request<T = unknown>(method: string, path: string, input?: RawRequestInput): Promise<WithResponse<T>> {
    return rawRequest<T>(this.#ctx, method, path, input);
  }
}

function resolveBaseUrl(options: ClientOptions): string {
  if ((options.region === undefined) === (options.baseUrl === undefined)) throw new TypeError('give either region or baseUrl');
  if (options.region !== undefined) {
    if (!isRegion(options.region)) throw new TypeError(`region must be one of in, us, eu, au; got ${String(options.region)}`);
    const regional = options.regionBaseUrls?.[options.region];
    if (regional === undefined) return REGION_BASE_URLS[options.region];
    return checkedUrl(regional, `regionBaseUrls.${options.region}`);
  }
  return checkedUrl(options.baseUrl!, 'baseUrl');
}

function checkedUrl(text: string, name: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`${name} is not a URL: ${text}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`${name} must be an http(s) URL`);
  if (url.search || url.hash) throw new TypeError(`${name} must not have a query or fragment`);
  return url.href.replace(/\/+$/, '');
}

function globalFetch(): FetchLike {
  if (typeof globalThis.fetch !== 'function') throw new TypeError('this runtime has no global fetch; pass options.fetch');
  return (input, init) => globalThis.fetch(input, init);
}
