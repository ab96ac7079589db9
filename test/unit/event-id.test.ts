// Event IDs (issue 15): `evt_` and a ULID, unique, sorting by creation time, and in creation order
// within one millisecond of the process (the IDs of one write share its time).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newEventId } from '../../src/domain/events/event-id.ts';

test('event IDs are evt_ + 26 Crockford base32 characters, sorted by time, then by creation within a millisecond', () => {
  const t = Date.UTC(2026, 10, 24, 8, 0, 0);
  const ids = [...Array.from({ length: 1000 }, () => newEventId(t)), newEventId(t + 1), newEventId(t + 1), newEventId(t + 60_000)];
  for (const id of ids) assert.match(id, /^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal(new Set(ids).size, ids.length, 'unique');
  assert.deepEqual([...ids].sort(), ids, 'sorted in creation order');
  // the time part is the millisecond, most significant first
  assert.equal(newEventId(0).slice(4, 14), '0000000000');
  assert.ok(newEventId(t).slice(4, 14) < newEventId(t + 1).slice(4, 14));
});
