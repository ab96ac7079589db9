// The CLI's value lists and the console's payload types are generated from the server's domain and
// schemas (scripts/generate-client-types.ts), and the outside client's types from the served
// document (scripts/generate-outside-client.ts): the committed files must equal a fresh rendering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { CLI_VOCABULARY_FILE, CONSOLE_TYPES_FILE, renderCliVocabulary, renderConsoleTypes } from '../../scripts/generate-client-types.ts';
import { OUTSIDE_CLIENT_FILE, renderOutsideClient } from '../../scripts/generate-outside-client.ts';

test('packages/cli/src/vocabulary.ts is what the domain generates (run `npm run generate` if not)', () => {
  assert.equal(fs.readFileSync(CLI_VOCABULARY_FILE, 'utf8'), renderCliVocabulary());
});

test('src/console/web/types.ts is what the console schemas generate (run `npm run generate` if not)', () => {
  assert.equal(fs.readFileSync(CONSOLE_TYPES_FILE, 'utf8'), renderConsoleTypes());
});

test('test/outside-client/paths.ts is what openapi-typescript generates from the served document (run `npm run generate` if not)', async () => {
  assert.equal(fs.readFileSync(OUTSIDE_CLIENT_FILE, 'utf8'), await renderOutsideClient());
});
