// What a caller can watch of each call, in the manner of stripe-node's request/response events and
// octokit's hooks: one event before every attempt, one after every answer (or failure without
// one), and one before every retry with the wait ahead. The `debug` option is these hooks writing
// one line each. Nothing here ever sees a request body, so the client secret sent to the token
// endpoint and upload contents stay out of logs; the Authorization header is not in the events.
import type { ComplianceError } from '../errors.ts';

export interface RequestEvent {
  method: string;
  /** the full URL, query included */
  url: string;
  /** 1 for the first attempt of a call */
  attempt: number;
  /** the request's headers without Authorization; a hook may add its own (e.g. a trace ID) */
  headers: Headers;
  idempotencyKey: string | undefined;
}

export interface ResponseEvent {
  method: string;
  url: string;
  attempt: number;
  /** the HTTP status; undefined when no answer arrived (see `error`) */
  status: number | undefined;
  requestId: string | undefined;
  /** from sending the request to reading the whole answer */
  durationMs: number;
  headers: Headers | undefined;
  /** set when the attempt failed: an API error, or a ConnectionError / TimeoutError */
  error: ComplianceError | undefined;
}

export type RetryReason = 'rate_limited' | 'server_error' | 'in_progress' | 'connection' | 'timeout';

export interface RetryEvent {
  method: string;
  url: string;
  reason: RetryReason;
  /** the error of the attempt that failed */
  error: ComplianceError;
  /** the wait before the next attempt */
  delayMs: number;
  /** the next attempt's number (2 for the first retry) and the most attempts this call makes */
  nextAttempt: number;
  maxAttempts: number;
}

export interface Hooks {
  onRequest?: (event: RequestEvent) => void;
  onResponse?: (event: ResponseEvent) => void;
  onRetry?: (event: RetryEvent) => void;
}

/** Calls each hook, and never lets one break the call: a hook that throws is ignored. */
export function safeHooks(hooks: Hooks[]): Required<Hooks> {
  const each =
    <K extends keyof Hooks>(name: K) =>
    (event: Parameters<NonNullable<Hooks[K]>>[0]) => {
      for (const h of hooks) {
        try {
          (h[name] as ((e: typeof event) => void) | undefined)?.(event);
        } catch {
          // an observer's failure is its own; the request goes on
        }
      }
    };
  return { onRequest: each('onRequest'), onResponse: each('onResponse'), onRetry: each('onRetry') };
}

/** `debug: true` (lines to console.error) or a function that takes each line. */
export function debugHooks(debug: boolean | ((line: string) => void) | undefined): Hooks | undefined {
  if (!debug) return undefined;
  const write = typeof debug === 'function' ? debug : (line: string) => console.error(line);
  return {
    onRequest: (e) =>
      write(
        `compliance-sdk: -> ${e.method} ${e.url} (attempt ${e.attempt})${e.idempotencyKey ? ` idempotency-key=${e.idempotencyKey}` : ''}`,
      ),
    onResponse: (e) =>
      write(
        e.status === undefined
          ? `compliance-sdk: <- ${e.method} ${e.url} failed after ${e.durationMs} ms: ${e.error?.message ?? 'no answer'}`
          : `compliance-sdk: <- ${e.status} ${e.method} ${e.url} ${e.durationMs} ms${e.requestId ? ` request-id=${e.requestId}` : ''}`,
      ),
    onRetry: (e) =>
      write(`compliance-sdk: retrying ${e.method} ${e.url} in ${e.delayMs} ms (${e.reason}; attempt ${e.nextAttempt} of ${e.maxAttempts})`),
  };
}
