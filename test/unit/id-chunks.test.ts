// `chunked` gathers the rows of every chunk's statement, however many one statement answers: a
// plan or apply of tests × 10,000 flagged resources reads hundreds of thousands of rows for 500
// test IDs, which spread into one `push` overflowed the stack (RangeError, a 500).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunked, ID_CHUNK } from '../../src/storage/db/id-chunks.ts';

test('chunked gathers 300,000 rows from two statements, in chunk order', async () => {
  const ids = Array.from({ length: ID_CHUNK + 1 }, (_, i) => `id-${i}`);
  const rows = await chunked(ids, async (chunk) => Array.from({ length: 150_000 }, (_, i) => `${chunk[0]}:${i}`));
  assert.equal(rows.length, 300_000);
  assert.equal(rows[0], 'id-0:0');
  assert.equal(rows[150_000], `id-${ID_CHUNK}:0`);
});
