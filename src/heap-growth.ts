// How far the V8 heap may grow between full collections (HEAP_GROWTH_PERCENT). After each full
// collection V8 lets the old generation grow by a factor it picks from how cheap collecting was:
// up to four times what survived on a machine with gigabytes of memory. A bulk write holds its input
// live (a program document: ~100 MiB of objects at the demo's scale 20) and leaves garbage behind
// it, so with that factor a server's resident memory grows by three times the input before
// anything is collected. A fixed factor of two halves that growth at the same speed
// (bench/program-apply.ts prints both; docs/benchmarks.md#program-documents). Set once, at start,
// by every process that runs the verbs: the server, `cds`, and the benchmarks that stand for them.
import v8 from 'node:v8';

/** Applies HEAP_GROWTH_PERCENT: 0 keeps V8's own factor. */
export function setHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
