// The pause between a background worker's passes (webhook deliveries, time, jobs): it ends when
// its time is up or when something wakes it (a job queued on this node, a test that moved its
// clock). A wake-up that comes while the worker is busy, not sleeping, ends its next pause at once,
// so no work announced during a pass waits a whole poll interval.
export class WakeableSleep {
  #wake: (() => void) | undefined;
  #woken = false;

  /** Ends the pause in progress, or the next one at once. */
  wake(): void {
    if (this.#wake) this.#wake();
    else this.#woken = true;
  }

  /** Waits `ms`, or until woken. */
  sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}
