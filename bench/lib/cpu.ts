// CPU seconds (user + system, all threads) a process has used so far, from /proc (Linux; NaN
// elsewhere). On a machine other jobs share, what a request costs a server in CPU is steadier
// than how many requests it answers in a second, which depends on the CPU it is given.
import fs from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat on Linux. */
const TICKS = 100;

export function cpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return Number.NaN;
  }
}
