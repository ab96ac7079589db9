// A JSON body is read an item of its top-level lists at a time (src/workers/program-document.ts,
// issue 36, goal (d)), and a test's flagged resources stay packed until read
// (src/domain/program/packed-lists.ts): the document, the checks' answer and the refusals must be
// exactly those of reading the same document whole. Each text here is read both ways: as bytes
// (the item-at-a-time reader) and as text (the console's door, which reads it whole).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { programDocumentTasks, type Piece, type ProgramLoaded, type ProgramSource } from '../../src/workers/program-document.ts';
import { documentOf } from '../../src/workers/load-program-in-pool.ts';
import { Transfer } from '../../src/workers/task-messages.ts';
import { DEFAULT_PROGRAM_LIMITS } from '../../src/shared/program-limits.ts';
import { ServiceError } from '../../src/shared/errors.ts';
import { referencesOf } from '../../src/domain/program/packed-lists.ts';
import { programKind } from '../../src/domain/program/registry.ts';
import type { KeyedEntry } from '../../src/domain/kinds/kind.ts';

type Read = { value: unknown; checked: unknown } | { refused: unknown };

async function read(source: Omit<ProgramSource, 'file' | 'format' | 'limits'>): Promise<Read> {
  const pieces: Piece[] = [];
  let answer: unknown;
  try {
    answer = programDocumentTasks['program.load']({ ...source, file: 'body', format: 'json', limits: DEFAULT_PROGRAM_LIMITS }, (piece) =>
      pieces.push(piece as Piece),
    );
  } catch (error) {
    assert.ok(error instanceof ServiceError, String(error));
    return { refused: { code: error.code, details: error.details } };
  }
  const loaded = (answer instanceof Transfer ? answer.value : answer) as ProgramLoaded;
  const { value, checked } = await documentOf(loaded, pieces);
  // every packed field read back, as a plain value
  return { value: JSON.parse(JSON.stringify(value)), checked };
}

const bothWays = async (text: string) => {
  const whole = await read({ text, check: { prune: false } });
  const inItems = await read({ bytes: new TextEncoder().encode(text), check: { prune: false } });
  assert.deepEqual(inItems, whole);
  return whole;
};

const resources = (n: number, extra: (i: number) => object = () => ({})) =>
  Array.from({ length: n }, (_, i) => ({ resourceId: `r-${i}`, name: `n${i % 7}`, status: 'passing', ...extra(i) }));

describe('a JSON program document read an item at a time', () => {
  test('a document of tests with flagged resources: the same document and checks as read whole', async () => {
    const doc = {
      version: 1,
      people: [{ key: 'ann', name: 'Ann', email: 'ann@example.com' }],
      tests: [
        { key: 't-1', name: 'One', resources: resources(50, (i) => (i % 3 === 0 ? { assignees: ['ann'] } : {})) },
        { key: 't-2', name: 'Two', resources: [] },
        { key: 't-3', name: 'Three é ✓', resources: resources(3, () => ({ description: 'café ☕' })) },
        { key: 't-4', name: 'Four' },
      ],
    };
    const read = await bothWays(JSON.stringify(doc, null, 1));
    assert.deepEqual((read as { value: unknown }).value, doc);
    await bothWays(JSON.stringify(doc));
    // with a byte order mark, and with spaces everywhere JSON allows them
    await bothWays(`\ufeff${JSON.stringify(doc)}`);
    await bothWays(JSON.stringify(doc, null, '\t').replaceAll(':', ' : ').replaceAll(',', ' ,\n '));
  });

  test('schema problems, repeated keys and each kind’s own checks answer as read whole', async () => {
    const tests = [
      { key: 'same', name: 'A', resources: resources(2, () => ({ assignees: ['ann', 'ann'] })) },
      { key: 'same', name: 'B' },
    ];
    const checks = await bothWays(JSON.stringify({ version: 1, tests }));
    assert.ok(((checks as { checked: { entries: unknown[] } }).checked.entries.length ?? 0) >= 2);
    const schema = await bothWays(
      JSON.stringify({ version: 1, controls: [{ key: 'c' }], tests: [{ key: 'x', name: 1, resources: [{ resourceId: 2 }] }, ...tests] }),
    );
    assert.ok((schema as { checked: { entries: unknown[] } }).checked.entries.length > 0);
    await bothWays(JSON.stringify({ version: 2, tests: [{ key: 'x', name: 'x' }], surplus: true }));
    await bothWays(JSON.stringify({ version: 1, tests: { key: 'not a list' } }));
    await bothWays(JSON.stringify({ version: 1, tests: [1, 'two', null, [], { key: 'k', name: 'n', resources: 'none' }] }));
    await bothWays('[]');
    await bothWays('{}');
  });

  test('refusals name the same problem in the same place', async () => {
    for (const text of [
      '{"version":1,"tests":[{"key":"a","name":"b"} {"key":"c"}]}',
      '{"version":1,"tests":[{"key":"a","name":"b",}]}',
      '{"version":1,"tests":[{"key":"a","name":"b"}]} trailing',
      '{"version":1,"tests":[{"key":"a","key":"b"}]}',
      '{"version":1,"tests":[{"key":"a","name":"nul \\u0000 here"}]}',
      '{"version":1,"tests":[{"key":"a","name":"b","resources":[{"resourceId":"x","lastScannedAt":1e999}]}]}',
      '{"version":1,"tests":[{"key":"a","name":"unterminated}]}',
    ]) {
      const whole = await bothWays(text);
      assert.ok('refused' in whole, text);
    }
  });

  test('the references a packed list holds are those of the list itself, after the entry’s own', async () => {
    const text = JSON.stringify({
      version: 1,
      tests: [
        {
          key: 't',
          name: 'T',
          assignees: [{ person: 'p0' }],
          entities: ['e0'],
          resources: resources(4, (i) => ({ assignees: [`p${i}`], entities: [`e${i}`, 'e9'] })),
        },
      ],
    });
    const pieces: Piece[] = [];
    const answer = programDocumentTasks['program.load'](
      { bytes: new TextEncoder().encode(text), file: 'body', format: 'json', limits: DEFAULT_PROGRAM_LIMITS, check: { prune: false } },
      (piece) => pieces.push(piece as Piece),
    ) as Transfer;
    const { value } = await documentOf(answer.value as ProgramLoaded, pieces);
    const entry = (value as { tests: KeyedEntry[] }).tests[0];
    const kind = programKind('tests')!;
    const plain = JSON.parse(JSON.stringify(entry)) as KeyedEntry;
    assert.deepEqual(referencesOf(kind, entry, '/tests/0'), kind.references(plain, '/tests/0'));
    assert.equal(referencesOf(kind, entry, '/tests/0').length, 2 + 4 * 3);
  });
});
