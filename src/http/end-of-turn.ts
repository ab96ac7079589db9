// Work deferred to the end of the event loop's current turn, run together in the order it was
// queued. setImmediate callbacks run in the check phase, right after the poll phase has read every
// socket that was ready, so whatever the requests of one turn queue here runs in one burst.
//
// src/http/warm-reads.ts writes its answers this way. Each answer written at once (after about
// ten microseconds of work for the next request) found the client waiting and woke it; the kernel
// does that inside the write, and on a virtual machine a cross-core wake-up costs more than the
// rest of a warm read (measured: CPU per warm read on SQLite 57 µs written at once, 33 µs written
// at the end of the turn, bench/reads.ts). Written in a burst, a client woken by the first answer
// is still running when the next ones arrive. No answer waits longer than the rest of its turn.
export class EndOfTurn {
  private jobs: Array<() => void> = [];
  private readonly onError: (err: unknown) => void;

  /** `onError` hears a job that threw; the jobs after it still run. */
  constructor(onError: (err: unknown) => void) {
    this.onError = onError;
  }

  add(job: () => void) {
    if (this.jobs.push(job) === 1) setImmediate(this.run);
  }

  private readonly run = () => {
    const jobs = this.jobs;
    this.jobs = [];
    for (const job of jobs) {
      try {
        job();
      } catch (err) {
        this.onError(err);
      }
    }
  };
}
