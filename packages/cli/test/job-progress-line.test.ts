// The status line of a job the service runs (issue 36: "a progress bar on a terminal: parsed,
// written"): at a terminal it redraws one line with the service's own count; forced onto a log it
// writes a line per stage, never one per count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobProgressDetail, statusLine } from '../src/progress.ts';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream };
}

test('the count in words: findings checked, then written of the total', () => {
  assert.equal(jobProgressDetail({ stage: 'checking', parsed: 12_000, written: 0, total: null }), '12,000 findings');
  assert.equal(jobProgressDetail({ stage: 'writing', parsed: 20_000, written: 8_000, total: 20_000 }), '8,000 of 20,000 findings (40%)');
  assert.equal(jobProgressDetail({ stage: 'writing', parsed: 0, written: 0, total: 0 }), '0 of 0 findings (100%)');
});

test('at a terminal: one line redrawn with each new count', () => {
  const s = stream(true);
  const line = statusLine('import job', { enabled: true, stream: s.stream });
  line.set('queued');
  line.set('checking', '1,000 findings');
  line.set('checking', '2,000 findings');
  line.set('writing', '500 of 2,000 findings (25%)');
  line.set('done');
  line.end();
  assert.deepEqual(s.written, [
    '\rimport job queued\x1b[K',
    '\rimport job checking 1,000 findings\x1b[K',
    '\rimport job checking 2,000 findings\x1b[K',
    '\rimport job writing 500 of 2,000 findings (25%)\x1b[K',
    '\rimport job done\x1b[K',
    '\n',
  ]);
});

test('on a log: a line per stage, without the counts', () => {
  const s = stream(false);
  const line = statusLine('import job', { enabled: true, stream: s.stream });
  line.set('queued');
  line.set('checking', '1,000 findings');
  line.set('checking', '2,000 findings');
  line.set('writing', '500 of 2,000 findings (25%)');
  line.set('writing', '2,000 of 2,000 findings (100%)');
  line.set('done');
  line.end();
  assert.deepEqual(s.written, ['import job queued\n', 'import job checking\n', 'import job writing\n', 'import job done\n']);
});

test('nothing when progress is off', () => {
  const s = stream(true);
  const line = statusLine('import job', { enabled: false, stream: s.stream });
  line.set('checking', '1 findings');
  line.end();
  assert.deepEqual(s.written, []);
});
