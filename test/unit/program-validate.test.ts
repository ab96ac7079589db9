// The program document's schema check (src/domain/program/validate.ts) answers "valid" from
// TypeBox's compiled check and falls back to Ajv for the problems. The two must agree on every
// document, or a plan could accept what the service's own JSON Schema refuses: lengths count code
// points (an emoji is one character), patterns read Unicode, and every bound holds on both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { ProgramDocument } from '../../src/domain/program/document-schema.ts';
import { schemaIssues } from '../../src/domain/program/validate.ts';

const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false, unicodeRegExp: true }).compile(
  ProgramDocument,
);

const emoji = '\u{1F600}';
const entity = (name: unknown, key: unknown = 'e1') => ({ version: 1, entities: [{ key, name }] });
const control = (fields: object) => ({
  version: 1,
  controls: [{ key: 'c1', code: 'C-1', name: 'C', domain: 'D', functionGrouping: 'protect', ...fields }],
});
const finding = (fields: object) => ({ version: 1, vulnerabilities: [{ key: 'aws%23f1', title: 'T', severity: 'low', ...fields }] });
const cases: Array<[string, unknown, boolean]> = [
  ['a plain document', entity('Acme'), true],
  ['a name of 255 emoji (510 UTF-16 units, 255 characters)', entity(emoji.repeat(255)), true],
  ['a name of 256 emoji', entity(emoji.repeat(256)), false],
  ['a name of 255 letters', entity('a'.repeat(255)), true],
  ['a name of 256 letters', entity('a'.repeat(256)), false],
  ['a blank name', entity('   '), false],
  ['an empty name', entity(''), false],
  ['a key of letters of any script', entity('Acme', 'straße-Ω_1'), true],
  ['a key with a space', entity('Acme', 'a b'), false],
  ['a number for a name', entity(5), false],
  ['an unknown field', { version: 1, entities: [{ key: 'e1', name: 'A', colour: 'blue' }] }, false],
  ['an unknown kind', { version: 1, colours: [] }, false],
  ['version 2', { version: 2 }, false],
  ['no version', {}, false],
  ['not an object', [], false],
  ['a control naming a requirement', control({ requirements: ['soc2/cc1-1'] }), true],
  ['a control naming a requirement in another script', control({ requirements: ['iso/Ω.5'] }), true],
  ['a control naming an entity twice', control({ entities: ['e1', 'e1'] }), false],
  ['a requirement without its framework', control({ requirements: ['cc1'] }), false],
  ['a finding', finding({}), true],
  ['a finding of an unknown source', { version: 1, vulnerabilities: [{ key: 'scan%23f1', title: 'T', severity: 'low' }] }, false],
  [
    'a finding key of 255 emoji',
    { version: 1, vulnerabilities: [{ key: `aws%23${emoji.repeat(255)}`, title: 'T', severity: 'low' }] },
    true,
  ],
  [
    'a finding key of 256 emoji',
    { version: 1, vulnerabilities: [{ key: `aws%23${emoji.repeat(256)}`, title: 'T', severity: 'low' }] },
    false,
  ],
  ['a fractional epoch', finding({ firstSeen: 1.5 }), false],
  ['an unknown severity', finding({ severity: 'dire' }), false],
];

test('the fast check and Ajv give the same verdict on edge cases of every bound', () => {
  for (const [what, document, valid] of cases) {
    assert.equal(ajv(document), valid, `Ajv on ${what}`);
    assert.equal(schemaIssues(document).length === 0, valid, what);
  }
});

test('a refused document still names each problem by its JSON pointer', () => {
  const issues = schemaIssues({
    version: 1,
    entities: [
      { key: 'e1', name: emoji.repeat(256) },
      { key: 'e2', name: '' },
    ],
  });
  assert.deepEqual(
    issues.map((i) => i.field),
    ['/entities/0/name', '/entities/1/name'],
  );
});
