// docs/program-moves.md states, for test results and control scope, each move's state machine as a table; this checks every table
// against the code that enforces it, so the page cannot drift from what the service does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { RESULT_MOVES } from '../../src/domain/tests/result-moves.ts';
import { SCOPE_MOVES } from '../../src/domain/controls/scope-moves.ts';

const page = fs.readFileSync(new URL('../../docs/program-moves.md', import.meta.url), 'utf8');

/** The `from | allowed moves` table of a section, as from → moves. */
function table(section: string): Record<string, string[]> {
  const start = page.indexOf(`## ${section}\n`);
  assert.ok(start >= 0, `docs/program-moves.md has a section "${section}"`);
  const end = page.indexOf('\n## ', start + 1);
  const text = page.slice(start, end === -1 ? undefined : end);
  const rows: Record<string, string[]> = {};
  for (const line of text.split('\n')) {
    const m = /^\|\s*`([a-z_]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (!m) continue;
    const cell = m[2].trim();
    rows[m[1]] = cell === 'none' ? [] : cell.split(',').map((s) => s.trim().replace(/`/g, ''));
  }
  return rows;
}

test('the test status table is RESULT_MOVES', () => {
  assert.deepEqual(table('Test results'), RESULT_MOVES);
});

test('the control scope table is SCOPE_MOVES', () => {
  assert.deepEqual(table('Control scope'), SCOPE_MOVES);
});
