// A YAML document read a slice of its block lists at a time (src/formats/program/yaml-slices.ts)
// reads to the same plain data, or the same refusal, as the same text read whole: each text here is
// read both ways, the sliced way told to slice after every finished item.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextRefused } from '../../src/formats/program/json.ts';
import { parseYamlText } from '../../src/formats/program/yaml.ts';

const EVERY_ITEM = { chars: 1, every: 1 };

function read(text: string, sliced: boolean): { value: unknown } | { refused: unknown } {
  try {
    return { value: parseYamlText(text, sliced ? { keepDocument: false, slicing: EVERY_ITEM } : { keepDocument: true }).value };
  } catch (error) {
    if (error instanceof TextRefused) return { refused: error.refusal };
    throw error;
  }
}

const resources = (n: number, indent: string) =>
  Array.from({ length: n }, (_, i) => `${indent}- resourceId: r-${i}\n${indent}  name: "u${i}"\n${indent}  status: passing\n`).join('');

const TEXTS: Record<string, string> = {
  'tests with resources': `version: 1\ntests:\n${[0, 1, 2].map((t) => `  - key: t${t}\n    name: Test ${t}\n    resources:\n${resources(5, '      ')}`).join('')}`,
  'lists of lists, comments, quoted keys': `version: 1\n"tests":\n  # first\n  - - a\n    - b\n  - - c\n    - [d, e]\n  -\n    - 'f'\n  - {x: 1, y: [1, 2]}\n'other': [1, 2]\n`,
  'block scalars and multi-line text': `tests:\n  - key: a\n    description: |\n      line one\n      line two\n  - key: b\n    description: >-\n      folded\n      text\n  - key: c\n    notes: plain text that\n      goes on\n`,
  'a list at the map key column': `tests:\n- key: a\n- key: b\n- key: c\nversion: 1\n`,
  'numbers and core values': `list:\n  - 1\n  - 0x1F\n  - 1.5\n  - true\n  - null\n  - ~\n  - "2026-01-01"\n  - 2026-01-01\n`,
  'anchors and aliases': `people:\n  - &p {name: a}\n  - *p\n  - *p\nmore:\n  - *p\n`,
  'an alias before its anchor': `list:\n  - key: a\n  - *missing\n  - key: c\n`,
  'a directive': `%YAML 1.2\n---\nlist:\n  - a\n  - b\n  - c\n`,
  'a repeated key inside an item': `tests:\n  - key: a\n  - key: b\n    key: c\n  - key: d\n`,
  'a repeated top-level key': `tests:\n  - key: a\n  - key: b\ntests:\n  - key: c\n`,
  'a tag in an item': `tests:\n  - key: a\n  - key: !custom b\n  - key: c\n`,
  'a core tag in an item': `tests:\n  - key: !!str 1\n  - key: b\n  - key: c\n`,
  'an inexact number in a later item': `tests:\n  - key: a\n    n: 1\n  - key: b\n    n: 123456789012345678901234\n  - key: c\n`,
  'a __proto__ key in an item': `tests:\n  - key: a\n  - __proto__: x\n  - key: c\n`,
  'a list as a key': `tests:\n  - key: a\n  - ? [a, b]\n    : c\n  - key: d\n`,
  'a syntax error in a later item': `tests:\n  - key: a\n  - key: "b\n  - key: c\n`,
  'a wrong indentation in a later item': `tests:\n  - key: a\n     name: b\n  - key: c\n`,
  'two documents': `tests:\n  - a\n  - b\n---\ntests:\n  - c\n  - d\n`,
  'deep nesting inside a list': `tests:\n  - key: a\n  - ${'['.repeat(40)}${']'.repeat(40)}\n  - key: c\n`,
  'deep block nesting': `tests:\n${Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i + 1)}- a\n${'  '.repeat(i + 1)}-`).join('\n')} z\n`,
  'keys that are words of other types': `true:\n  - a\n  - b\n1:\n  - c\n  - d\nnull:\n  - e\n  - f\n`,
  'an empty list item': `tests:\n  -\n  - key: b\n  -\n`,
};

for (const [name, text] of Object.entries(TEXTS)) {
  test(`sliced and whole read alike: ${name}`, () => {
    assert.deepEqual(read(text, true), read(text, false));
  });
}

test('a long document is sliced and reads to the same data', () => {
  const text = `version: 1\ntests:\n${Array.from({ length: 30 }, (_, t) => `  - key: t${t}\n    resources:\n${resources(200, '      ')}`).join('')}`;
  const sliced = parseYamlText(text, { keepDocument: false, slicing: { chars: 2000, every: 64 } }).value;
  assert.deepEqual(sliced, parseYamlText(text, { keepDocument: true }).value);
  const tests = (sliced as { tests: Array<{ resources: unknown[] }> }).tests;
  assert.equal(tests.length, 30);
  assert.ok(tests.every((t) => t.resources.length === 200));
});
