// The one place that sends a request: per-attempt time-out, the bearer token, the
// Idempotency-Key, and the retry loop of the spec's rules (transport/retry-rules.ts) with the
// waits of transport/backoff.ts. Every SDK method goes through `send`; the token endpoint too,
// so token requests are retried by the same rules.
import { type ComplianceApiError, ConnectionError, TimeoutError, apiErrorFromResponse } from '../errors.ts';
import { backoffDelayMs, retryAfterMs, type BackoffSettings } from './backoff.ts';
import type { Hooks, RetryReason } from './hooks.ts';
import { retryReason, verdictFor } from './retry-rules.ts';
import { abortReason, sleep } from './timing.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface SenderSettings extends BackoffSettings {
  baseUrl: string;
  fetch: FetchLike;
  maxRetries: number;
  timeoutMs: number;
  /** a Retry-After longer than this is not waited for: the error is thrown at once */
  maxRetryAfterMs: number;
  /** the User-Agent header (transport/user-agent.ts) */
  userAgent: string;
  /** observers of every attempt (transport/hooks.ts); they never throw */
  hooks: Required<Hooks>;
}

/** Where bearer tokens come from (transport/token-cache.ts). */
export interface TokenSource {
  get(signal?: AbortSignal): Promise<string>;
  /** The service refused `token`: forget it unless it has been replaced already. */
  invalidate(token: string): void;
  /** The service answered `401 token_revoked` to `token`: its credential is revoked (empties a token store). */
  revoked?(token: string): Promise<void>;
}

/** The bytes of a request body, produced again for every attempt. */
export interface RequestBody {
  contentType: string;
  /** a fresh body for the next attempt; `streaming` bodies need fetch's `duplex: 'half'` */
  open(): { body: NonNullable<RequestInit['body']>; streaming: boolean };
  /** false once the body cannot be produced again (a one-shot stream that has been read) */
  replayable(): boolean;
  /** an error a body source raised while being read (a file that vanished, a stream that failed) */
  sourceError(): unknown;
}

export interface Call {
  method: string;
  /** path and query string, appended to the base URL */
  path: string;
  body?: RequestBody;
  idempotencyKey?: string;
  /** absent for the token endpoint */
  tokens?: TokenSource;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  /** more headers (raw requests); the sender's own are set after them */
  headers?: Record<string, string>;
  /** a success without a body is `undefined` rather than an unexpected answer (raw requests) */
  allowEmptyBody?: boolean;
  /** the success's body as text, not parsed as JSON (a YAML export) */
  text?: boolean;
}

/** What the SDK saw of the final answer. */
export interface ResponseInfo {
  status: number;
  /** `X-Request-Id` of the answer */
  requestId: string | undefined;
  headers: Headers;
  /** true when a write was answered from the stored response of an earlier attempt or call with the same Idempotency-Key */
  idempotentReplayed: boolean;
  /** attempts made, 1 when the first one succeeded */
  attempts: number;
  /** the Idempotency-Key sent with a write */
  idempotencyKey: string | undefined;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

export class RequestSender {
  readonly settings: SenderSettings;

  constructor(settings: SenderSettings) {
    this.settings = settings;
  }

  async send<T>(call: Call): Promise<{ body: T; info: ResponseInfo }> {
    const maxRetries = call.maxRetries ?? this.settings.maxRetries;
    const url = this.settings.baseUrl + call.path;
    const { hooks } = this.settings;
    let retries = 0;
    let attempts = 0;
    let renewedToken = false;
    const retryAfter = async (reason: RetryReason, error: ConnectionError | TimeoutError | ComplianceApiError, delayMs: number) => {
      hooks.onRetry({ method: call.method, url, reason, error, delayMs, nextAttempt: attempts + 1, maxAttempts: maxRetries + 1 });
      await sleep(delayMs, call.signal);
      retries++;
    };
    for (;;) {
      const token = call.tokens ? await call.tokens.get(call.signal) : undefined;
      attempts++;
      const started = Date.now();
      let answer: Answer;
      try {
        answer = await this.#attempt(call, url, token, attempts);
      } catch (err) {
        if (!(err instanceof ConnectionError || err instanceof TimeoutError)) throw err;
        hooks.onResponse({ ...unanswered(call.method, url, attempts, started), error: err });
        if (retries >= maxRetries || !canResend(call)) throw err;
        await retryAfter(err instanceof TimeoutError ? 'timeout' : 'connection', err, backoffDelayMs(retries, this.settings));
        continue;
      }
      const ok = answer.status >= 200 && answer.status < 300;
      const error = ok ? undefined : apiErrorFromResponse(answer.status, answer.headers, answer.text);
      hooks.onResponse({
        method: call.method,
        url,
        attempt: attempts,
        status: answer.status,
        requestId: answer.headers.get('x-request-id') ?? undefined,
        durationMs: Date.now() - started,
        headers: answer.headers,
        error,
      });
      if (!error) {
        const body = call.text ? (answer.text as T) : parseSuccess<T>(answer, call.allowEmptyBody);
        return { body, info: infoOf(answer, attempts, call.idempotencyKey) };
      }

      const verdict = verdictFor(error, token !== undefined);
      if (token !== undefined && error.status === 401 && error.code === 'token_revoked') await call.tokens!.revoked?.(token);
      if (verdict === 'renew-token' && !renewedToken && canResend(call)) {
        renewedToken = true;
        call.tokens!.invalidate(token!);
        continue;
      }
      if (verdict !== 'retry' || retries >= maxRetries || !canResend(call)) throw error;
      const delay = this.#delayBeforeRetry(error, retries);
      if (delay === undefined) throw error;
      await retryAfter(retryReason(error), error, delay);
    }
  }

  /** Retry-After when the service sent one (and it is not too long), otherwise backoff. */
  #delayBeforeRetry(error: ComplianceApiError, retries: number): number | undefined {
    const asked = retryAfterMs(error.headers);
    if (asked === undefined) return backoffDelayMs(retries, this.settings);
    return asked > this.settings.maxRetryAfterMs ? undefined : asked;
  }

  async #attempt(call: Call, url: string, token: string | undefined, attempt: number): Promise<Answer> {
    if (call.signal?.aborted) throw abortReason(call.signal);
    const timeoutMs = call.timeoutMs ?? this.settings.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort(call.signal!.reason);
    call.signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const headers = new Headers(call.headers);
      headers.set('accept', headers.get('accept') ?? 'application/json');
      headers.set('user-agent', this.settings.userAgent);
      if (call.idempotencyKey !== undefined) headers.set('idempotency-key', call.idempotencyKey);
      const init: RequestInit & { duplex?: 'half' } = { method: call.method, headers, signal: controller.signal };
      if (call.body) {
        const opened = call.body.open();
        headers.set('content-type', call.body.contentType);
        init.body = opened.body;
        if (opened.streaming) init.duplex = 'half';
      }
      // Observers get their own copy, so they never hold the bearer token; what they add is sent.
      const observed = new Headers(headers);
      this.settings.hooks.onRequest({ method: call.method, url, attempt, headers: observed, idempotencyKey: call.idempotencyKey });
      for (const [name, value] of observed) headers.set(name, value);
      if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
      // The body is read under the same signal, so the time-out covers the whole answer.
      const res = await this.settings.fetch(url, init);
      const text = await res.text();
      return { status: res.status, headers: res.headers, text };
    } catch (err) {
      if (call.signal?.aborted) throw abortReason(call.signal);
      const sourceError = call.body?.sourceError();
      if (sourceError !== undefined) throw sourceError;
      if (timedOut) throw new TimeoutError(timeoutMs);
      throw connectionError(url, err);
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onCallerAbort);
    }
  }
}

const canResend = (call: Call) => !call.body || call.body.replayable();

function parseSuccess<T>(answer: Answer, allowEmpty: boolean | undefined): T {
  if (allowEmpty && answer.text === '') return undefined as T;
  try {
    return JSON.parse(answer.text) as T;
  } catch {
    throw apiErrorFromResponse(answer.status, answer.headers, answer.text);
  }
}

function infoOf(answer: Answer, attempts: number, idempotencyKey: string | undefined): ResponseInfo {
  return {
    status: answer.status,
    requestId: answer.headers.get('x-request-id') ?? undefined,
    headers: answer.headers,
    idempotentReplayed: answer.headers.get('idempotent-replayed') === 'true',
    attempts,
    idempotencyKey,
  };
}

function unanswered(method: string, url: string, attempt: number, started: number) {
  return { method, url, attempt, status: undefined, requestId: undefined, durationMs: Date.now() - started, headers: undefined };
}

/** The platform's system error codes, in words a person acts on. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed by the other side',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
};

/** One short line (`cannot reach http://127.0.0.1:3000: connection refused`); the platform's error stays in `cause`. */
function connectionError(url: string, err: unknown): ConnectionError {
  const code = systemCode(err);
  const reason = (code && REASONS[code]) ?? innermostMessage(err);
  return new ConnectionError(`cannot reach ${new URL(url).origin}: ${reason}`, { cause: err, code, url });
}

function systemCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const nested = (e as { errors?: unknown }).errors; // AggregateError: each address tried
    if (Array.isArray(nested) && nested.length > 0) return systemCode(nested[0]);
  }
  return undefined;
}

function innermostMessage(err: unknown): string {
  let e = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}
