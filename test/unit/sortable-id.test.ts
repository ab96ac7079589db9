// Audit-log IDs sort in creation order, also within one millisecond, and are valid UUIDv7 text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sortableId } from '../../src/domain/console/sortable-id.ts';

test('IDs made in one millisecond, and across milliseconds, sort as they were made', () => {
  const t = Date.UTC(2026, 10, 22, 3, 0, 0, 123);
  const ids = [sortableId(t), sortableId(t), sortableId(t), sortableId(t + 1), sortableId(t + 1), sortableId(t + 1000)];
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16), t, 'the first 48 bits are the time');
});
