// A worker thread's CPU priority below the event loop's (WORKER_NICE; docs/decisions/performance.md,
// "Worker threads yield the cores"). On a machine with few cores the thread that parses one
// organization's 50 MiB document competes for a core with the event loop that answers every other
// organization, and with the database: measured on 2 cores, the others' writes waited for the CPU,
// not for the loop. Linux gives each thread a nice value of its own: setpriority on the thread's ID
// (found through /proc/thread-self, read on the thread itself) lowers this thread only. Raising a
// nice value needs no privilege; elsewhere the call would lower the whole process, so it is Linux only.
import fs from 'node:fs';
import os from 'node:os';

/** Gives the calling thread the nice value `nice` (0 leaves it as it is). */
export function lowerThisThreadPriority(nice: number): void {
  if (nice <= 0 || process.platform !== 'linux') return;
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, nice);
  } catch {
    // no /proc (a sandbox without it): the thread keeps the process's priority, as before
  }
}
