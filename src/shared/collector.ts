// V8's garbage collector, asked for by the code that knows when much has just died and V8 does not:
// uploads' body chunks (src/http/body-scavenges.ts) and the caches' dropped entries
// (src/shared/cache-collections.ts). Without exposing `gc` to the process's own code: the flag is on only
// while one new context is made, whose `gc` is kept here.
import v8 from 'node:v8';
import vm from 'node:vm';

type Collect = (options: { type: 'minor' | 'major'; execution?: 'sync' | 'async' }) => void;

/** Undefined if the runtime refuses; callers then run as they would without asking. */
function makeCollector(): Collect | undefined {
  try {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as Collect;
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/** Made on the first use, so a process that never asks never makes the context. */
let collector: Collect | undefined | null = null;

/**
 * Paces collections of one kind by bytes that died: every `bytesPerCollection` noted, one
 * collection. `major` ones run concurrently with the program (V8's incremental marking), so they
 * cost CPU on the collector's threads rather than a pause.
 */
export class CollectionPacer {
  private sinceLast = 0;
  private readonly type: 'minor' | 'major';
  readonly bytesPerCollection: number;

  constructor(type: 'minor' | 'major', bytesPerCollection: number) {
    this.type = type;
    this.bytesPerCollection = bytesPerCollection;
  }

  note(bytes: number): void {
    this.sinceLast += bytes;
    if (this.sinceLast < this.bytesPerCollection) return;
    this.sinceLast = 0;
    if (collector === null) collector = makeCollector();
    collector?.(this.type === 'major' ? { type: 'major', execution: 'async' } : { type: 'minor' });
  }
}
