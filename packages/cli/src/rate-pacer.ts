// Keeps a long walk (an export, a list of many findings) inside the rate limit instead of running
// into it: when a response says no request is left in the window (X-RateLimit-Remaining: 0), the
// next request waits until the window resets (X-RateLimit-Reset). Other clients of the same
// credential can still use the window up first; then the SDK's retry waits out the 429's
// Retry-After, so this is an optimization, not the only safeguard.
import { sleep } from './interrupt.ts';

/** Never wait longer than this on the strength of a header (a clock far off, a broken proxy). */
const MAX_WAIT_MS = 65_000;
/** Server and client clocks differ a little; the reset header is in whole seconds. */
const MARGIN_MS = 250;

export class RatePacer {
  #resumeAt = 0;

  observe(headers: Headers | undefined): void {
    if (!headers) return;
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const reset = Number(headers.get('x-ratelimit-reset'));
    if (headers.has('x-ratelimit-remaining') && Number.isFinite(remaining) && remaining <= 0 && Number.isFinite(reset)) {
      this.#resumeAt = reset * 1000 + MARGIN_MS;
    }
  }

  /** Waits, if the last response used the window up; `onWait` hears how long. */
  async wait(signal?: AbortSignal, onWait?: (ms: number) => void): Promise<void> {
    const ms = Math.min(MAX_WAIT_MS, this.#resumeAt - Date.now());
    this.#resumeAt = 0;
    if (ms <= 0) return;
    onWait?.(ms);
    await sleep(ms, signal);
  }
}
