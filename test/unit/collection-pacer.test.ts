// The collections the service asks V8 for (src/shared/collector.ts): one per given amount of bytes that
// died, of the kind asked, and none before that amount. Observed through V8's own GC entries.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { CollectionPacer } from '../../src/shared/collector.ts';

/** Counts V8's collections of `kind` while `run` runs, and up to `waitMs` after (async ones finish later). */
async function collectionsDuring(kind: number, run: () => void, waitMs = 2000): Promise<number> {
  let seen = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if ((entry as { detail?: { kind?: number } }).detail?.kind === kind) seen++;
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    run();
    const until = Date.now() + waitMs;
    while (Date.now() < until && seen === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 50));
    return seen;
  } finally {
    observer.disconnect();
  }
}

describe('collection pacer', () => {
  it('asks for a full collection once the bytes noted reach the amount, not before', async () => {
    const pacer = new CollectionPacer('major', 1024 * 1024);
    assert.equal(await collectionsDuring(constants.NODE_PERFORMANCE_GC_MAJOR, () => pacer.note(1024 * 1024 - 1), 200), 0);
    assert.ok((await collectionsDuring(constants.NODE_PERFORMANCE_GC_MAJOR, () => pacer.note(1))) >= 1);
  });

  it('asks for a young-generation collection when it paces minor ones', async () => {
    const pacer = new CollectionPacer('minor', 4096);
    assert.ok((await collectionsDuring(constants.NODE_PERFORMANCE_GC_MINOR, () => pacer.note(8192))) >= 1);
  });
});
