// The program document's JSON Schema (docs/program-documents.md, "Editor setup"): the file kept in
// the repository is what the TypeBox schema generates (run `npm run generate` if not), and an
// ordinary draft-07 validator — what a YAML language server runs — accepts a valid document and
// refuses an unknown field, as the service does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Ajv } from 'ajv';
import { PROGRAM_SCHEMA_FILE } from '../../scripts/generate-program-schema.ts';
import { programJsonSchemaText } from '../../src/formats/program/schema-file.ts';

test('schemas/program.schema.json is what the TypeBox schema generates (run `npm run generate` if not)', () => {
  assert.equal(fs.readFileSync(PROGRAM_SCHEMA_FILE, 'utf8'), programJsonSchemaText());
});

test('a draft-07 validator reads the file: a valid document passes, an unknown field fails', () => {
  const schema = JSON.parse(fs.readFileSync(PROGRAM_SCHEMA_FILE, 'utf8'));
  assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
  assert.match(schema.$id, /^http:\/\/.*\/v1\/program\/schema$/);
  const validate = new Ajv({ allErrors: true, strict: false, unicodeRegExp: true }).compile(schema);
  const good = {
    version: 1,
    frameworks: [{ key: 'soc2', name: 'SOC 2', requirements: [{ key: 'cc1-1', code: 'CC1.1', name: 'Integrity' }] }],
  };
  assert.ok(validate(good), JSON.stringify(validate.errors));
  assert.equal(validate({ ...good, colour: 'blue' }), false);
  assert.equal(validate({ version: 2 }), false);
});
