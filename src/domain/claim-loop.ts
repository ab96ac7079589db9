// The loop of a worker that claims rows with leases and runs each on its own (jobs/worker.ts,
// webhooks/worker.ts): fill the free slots, look again at once when every slot was filled (more may
// be due; a slot that frees wakes the pause), else pause (wakeable-sleep.ts) until the next look.
import type { WakeableSleep } from './wakeable-sleep.ts';

export interface ClaimLoop<Row> {
  stopping(): boolean;
  /** how many more rows may run now */
  free(): number;
  claim(limit: number): Promise<Row[]>;
  /** starts a claimed row's work without waiting for it */
  run(row: Row): void;
  /** a claim the database refused: reported, then tried again after the pause */
  onError(err: Error): void;
  pause: WakeableSleep;
  /** the pause after a look that claimed `claimed` rows */
  pauseMs(claimed: number): number;
}

/** Runs until `stopping()`: the promise a worker's stop() awaits. */
export async function claimLoop<Row>(loop: ClaimLoop<Row>): Promise<void> {
  while (!loop.stopping()) {
    const free = loop.free();
    let claimed = 0;
    if (free > 0) {
      try {
        const rows = await loop.claim(free);
        claimed = rows.length;
        for (const row of rows) loop.run(row);
      } catch (err) {
        loop.onError(err as Error);
      }
      if (loop.stopping()) break;
      // every slot filled: more may be due; the next claim waits for a slot (run() wakes the loop)
      if (claimed > 0 && claimed === free) continue;
    }
    await loop.pause.sleep(loop.pauseMs(claimed));
  }
}

/** Waits for the work in flight to end, for at most `graceMs` (a worker's stop). */
export async function settleWithin(inFlight: Iterable<Promise<void>>, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
  clearTimeout(timer);
}
