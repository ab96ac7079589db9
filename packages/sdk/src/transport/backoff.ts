// How long to wait before the next attempt: the service's Retry-After when it sent one,
// otherwise capped exponential backoff with full jitter (a random wait between zero and the
// cap), so many clients failing together do not retry in step.

export interface BackoffSettings {
  /** the cap of the first retry's random wait; doubles per retry */
  baseDelayMs: number;
  /** no computed wait exceeds this */
  maxDelayMs: number;
}

/** `retry` counts from 0 for the first retry. */
export function backoffDelayMs(retry: number, settings: BackoffSettings, random: () => number = Math.random): number {
  const cap = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** retry);
  return Math.floor(random() * cap);
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const raw = headers.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
