// When a failed delivery is tried again (docs/decisions/events-and-webhooks.md, "Webhook delivery across nodes"):
// growing delays, each jittered by ±20 % so that the deliveries of an endpoint that failed together
// do not come back together, then every 6 hours, until the endpoint has failed for
// WEBHOOK_GIVE_UP_SEC (3 days by default); the last retry is moved to that moment, so the endpoint
// is disabled when its run of failures reaches the limit rather than up to a delay later.

/** Delays after the 1st, 2nd, … failed attempt; past the end, the last one repeats. */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000];

export const JITTER = 0.2;

/** The delay after `attempts` failed attempts (1 = the first), jittered by `random` in [0, 1). */
export function retryDelayMs(attempts: number, random: number = Math.random()): number {
  const base = RETRY_DELAYS_MS[Math.min(Math.max(attempts, 1), RETRY_DELAYS_MS.length) - 1];
  return Math.round(base * (1 - JITTER + 2 * JITTER * random));
}

/**
 * What follows a failed attempt at `now`: another attempt at the returned time, or `give_up` when
 * the endpoint's failing run (since `failingSince`) has lasted `giveUpMs`.
 */
export function afterFailure(
  attempts: number,
  now: number,
  failingSince: number,
  giveUpMs: number,
  random?: number,
): { retryAt: number } | 'give_up' {
  const deadline = failingSince + giveUpMs;
  if (now >= deadline) return 'give_up';
  return { retryAt: Math.min(now + retryDelayMs(attempts, random), deadline) };
}
