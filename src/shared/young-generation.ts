// A minor collection of the event loop's young generation, asked for by code that has just made a
// lot of short-lived memory outside the heap (issue 36, goal (d)). Reading a 50 MiB request body
// leaves some 800 socket chunks of 64 KiB behind: garbage at once, but their memory is malloc'd,
// not the heap's, so the few objects they add to the heap never start a collection, and they
// stayed allocated through the whole plan that followed (50 MB of the process's peak). A minor
// collection (a scavenge) frees them in a millisecond or two: it pauses the loop for the young
// objects still alive only, never the old generation.
//
// V8's gc() is exposed by setting --expose-gc for the process (as the worker pool does,
// src/workers/pool.ts): it is added to contexts made afterwards, so a context is made for it here;
// the main context gets no global gc.
import v8 from 'node:v8';
import vm from 'node:vm';

type Collect = (options: { type: 'minor' | 'major' }) => void;
let collect: Collect | undefined;

export function collectYoungGeneration(): void {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as Collect;
  }
  collect({ type: 'minor' });
}
