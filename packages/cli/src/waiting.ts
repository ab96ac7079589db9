// What the command says at a terminal while it waits, so a pause never looks like a hang: before
// each retry (`rate limited, retrying in 11 s (2/4)`), and once when an answer is slow in coming.
// Built on the SDK's onRetry / onRequest / onResponse hooks; written to stderr only when stderr is
// a terminal (or --progress), so logs and pipes stay as they were.
import type { RequestEvent, ResponseEvent, RetryEvent } from './sdk.ts';

/** An answer slower than this gets one "waiting for" line. */
export const SLOW_ANSWER_MS = 3000;

export function retryNotice(e: RetryEvent): string {
  const wait = `retrying in ${formatWait(e.delayMs)} (${e.nextAttempt}/${e.maxAttempts})`;
  const status = (e.error as { status?: unknown }).status;
  switch (e.reason) {
    case 'rate_limited':
      return `rate limited, ${wait}`;
    case 'in_progress':
      return `the same write is still in progress, ${wait}`;
    case 'timeout':
      return `no answer in time from ${new URL(e.url).host}, ${wait}`;
    case 'connection':
      return `cannot reach ${new URL(e.url).host}, ${wait}`;
    default:
      return `the service answered ${typeof status === 'number' ? status : 'an error'}, ${wait}`;
  }
}

export function formatWait(ms: number): string {
  if (ms < 1000) return `${(Math.max(ms, 100) / 1000).toFixed(1)} s`;
  return `${Math.ceil(ms / 1000)} s`;
}

/** `GET /v1/controls` for a message: the path without the query, which may be long. */
const what = (method: string, url: string) => `${method} ${new URL(url).pathname}`;

/** Hooks that tell `notice` about retries and slow answers. */
export function waitingHooks(notice: (text: string) => void) {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const key = (e: { method: string; url: string; attempt: number }) => `${e.method} ${e.url} ${e.attempt}`;
  return {
    onRequest(e: RequestEvent) {
      const timer = setTimeout(() => {
        timers.delete(key(e));
        notice(`waiting for ${new URL(e.url).host} to answer ${what(e.method, e.url)}…`);
      }, SLOW_ANSWER_MS);
      timer.unref();
      timers.set(key(e), timer);
    },
    onResponse(e: ResponseEvent) {
      clearTimeout(timers.get(key(e)));
      timers.delete(key(e));
    },
    onRetry(e: RetryEvent) {
      notice(retryNotice(e));
    },
  };
}
