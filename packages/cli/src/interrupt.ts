// Ctrl-C cancels the running request and any wait for the rate limit (the SDK takes the signal),
// so an export can remove its unfinished files before the process ends with 130. A second
// Ctrl-C ends the process at once.
export class InterruptedError extends Error {
  override name = 'InterruptedError';
  /** set on writes: the outcome is unknown, so the key is what makes a retry safe */
  idempotencyKey?: string;
  constructor() {
    super('interrupted');
  }
}

export function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  process.on('SIGINT', () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort(new InterruptedError());
  });
  return controller.signal;
}

/** Resolves after `ms`, or rejects with the signal's reason when it is aborted first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
