// Shared by the tests of the files parsed in the worker threads (scan-in-pool, check-in-pool): the
// pool's streams all ended, and a reader that stops early.
import assert from 'node:assert/strict';
import type { WorkerPool } from '../../src/workers/pool.ts';
import { chunked } from './scanner-formats-read.ts';

/** Waits for every stream of the pool to have ended (the thread says so after its last message). */
export async function closed(pool: WorkerPool): Promise<void> {
  for (let waited = 0; pool.streams > 0 && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(pool.streams, 0, 'a stream is still open on its thread');
}

/** A reader of `text` through `parse` that stops after 300 items: its file is closed, and so is its stream. */
export async function stopsEarly(
  pool: WorkerPool,
  parse: (chunks: AsyncIterable<Uint8Array>) => AsyncGenerator<unknown, unknown>,
  text: string,
): Promise<void> {
  let fileClosed = false;
  async function* file() {
    try {
      yield* chunked(text, 4096);
    } finally {
      fileClosed = true;
    }
  }
  const gen = parse(file());
  for (let i = 0; i < 300; i++) assert.equal((await gen.next()).done, false);
  assert.equal(pool.streams, 1);
  await gen.return(undefined as never);
  assert.ok(fileClosed, 'the file is closed when the reader stops');
  await closed(pool);
}
