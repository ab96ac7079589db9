// Loading program documents (src/formats/program/, docs/program-documents.md "Loading"): YAML and
// JSON into the same plain data, a folder into one document, every refusal a validation_failed
// naming the place as a JSON pointer and a file, line and column; hostile texts (alias bombs, deep
// nesting, huge numbers, tags, oversize) refused quickly.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceError, validationFailed } from '../../src/shared/errors.ts';
import { PROGRAM_MAX_DEPTH } from '../../src/shared/program-limits.ts';
import {
  issueLine,
  loadProgramBytes,
  loadProgramPath,
  loadProgramText,
  withPlaces,
  type ProgramIssue,
} from '../../src/formats/program/load.ts';

const limits = { maxBytes: 1024 * 1024, maxRecords: 1000 };

function refusal(load: () => unknown): ProgramIssue {
  let caught: unknown;
  try {
    load();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ServiceError, `expected a refusal, got ${String(caught)}`);
  assert.equal(caught.code, 'validation_failed');
  return caught.details[0] as ProgramIssue;
}

async function refusalOf(load: () => Promise<unknown>): Promise<ServiceError> {
  const caught = await load().then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(caught instanceof ServiceError, `expected a refusal, got ${String(caught)}`);
  return caught;
}

/** Runs `load` and checks it took less than `ms`. */
function quick<T>(ms: number, load: () => T): T {
  const start = performance.now();
  try {
    return load();
  } finally {
    const took = performance.now() - start;
    assert.ok(took < ms, `took ${Math.round(took)} ms, more than ${ms}`);
  }
}

const YAML_DOC = `# yaml-language-server: $schema=https://example.com/v1/program/schema
version: 1
frameworks:
  - key: soc2
    name: SOC 2
    requirements:
      - key: cc1-1
        code: CC1.1
        name: Integrity and ethical values
controls:
  - key: access-review
    name: Access review
    due: 2026-01-01
`;

describe('program documents: YAML and JSON', () => {
  test('YAML and the same document in JSON read as the same plain data; dates stay strings', () => {
    const fromYaml = loadProgramText(YAML_DOC, { file: 'p.yaml', limits });
    const fromJson = loadProgramText(JSON.stringify(fromYaml.value, null, 2), { file: 'p.json', limits });
    assert.deepEqual(fromJson.value, fromYaml.value);
    assert.equal((fromYaml.value as { controls: Array<{ due: unknown }> }).controls[0].due, '2026-01-01');
  });

  test('a JSON pointer maps back to the line and column in YAML and in JSON', () => {
    const yaml = loadProgramText(YAML_DOC, { file: 'p.yaml', limits });
    assert.deepEqual(yaml.locate('/controls/0/name'), { file: 'p.yaml', line: 12, column: 5 });
    assert.deepEqual(yaml.locate('/frameworks/0/requirements/0/code'), { file: 'p.yaml', line: 8, column: 9 });
    // past what exists: the deepest existing place
    assert.deepEqual(yaml.locate('/controls/0/owner'), { file: 'p.yaml', line: 11, column: 5 });
    const json = loadProgramText('{\n  "version": 1,\n  "controls": [\n    { "key": "a" },\n    { "key": "b", "name": "B" }\n  ]\n}', {
      file: 'p.json',
      limits,
    });
    assert.deepEqual(json.locate('/controls/1/name'), { file: 'p.json', line: 5, column: 19 });
    assert.deepEqual(json.locate('/controls/1'), { file: 'p.json', line: 5, column: 5 });
  });

  test('withPlaces adds the file, line and column to each problem of a validation_failed', () => {
    const loaded = loadProgramText(YAML_DOC, { file: 'p.yaml', limits });
    const placed = withPlaces(validationFailed([{ field: '/controls/0/name', message: 'must not be blank' }]), loaded) as ServiceError;
    const issue = placed.details[0] as ProgramIssue;
    assert.deepEqual(issue, { field: '/controls/0/name', message: 'must not be blank', file: 'p.yaml', line: 12, column: 5 });
    assert.equal(issueLine(issue), 'p.yaml:12:5: /controls/0/name must not be blank');
  });

  test('syntax errors name the line and column', () => {
    const json = refusal(() => loadProgramText('{\n  "version": 1,\n  "controls": [}\n', { file: 'p.json', limits }));
    assert.equal(json.file, 'p.json');
    assert.equal(json.line, 3);
    assert.match(json.message, /not valid JSON/);
    const yaml = refusal(() => loadProgramText('version: 1\ncontrols:\n  - key: a\n   name: "unterminated\n', { file: 'p.yaml', limits }));
    assert.match(yaml.message, /not valid YAML/);
    assert.ok(yaml.line !== undefined && yaml.line >= 3);
  });

  test('a key written twice is refused, in YAML and in JSON', () => {
    const yaml = refusal(() => loadProgramText('version: 1\nversion: 2\n', { file: 'p.yaml', limits }));
    assert.equal(yaml.line, 2);
    const json = refusal(() => loadProgramText('{"version": 1, "controls": [{"key": "a", "key": "b"}]}', { file: 'p.json', limits }));
    assert.equal(json.field, '/controls/0/key');
    assert.match(json.message, /second time/);
  });

  test('__proto__ keys are refused', () => {
    assert.match(refusal(() => loadProgramText('{"__proto__": {"x": 1}}', { limits })).message, /__proto__/);
    assert.match(refusal(() => loadProgramText('__proto__:\n  x: 1\n', { limits })).message, /__proto__/);
  });
});

describe('program documents: hostile texts are refused quickly', () => {
  test('a YAML alias bomb', () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const issue = quick(2000, () => refusal(() => loadProgramText(levels.join('\n'), { limits })));
    assert.match(issue.message, /aliases/);
  });

  test('deep nesting, flow and block, YAML and JSON', () => {
    const deep = 100_000;
    for (const text of ['['.repeat(deep), `${'- '.repeat(deep)}x`, `{"a":${'['.repeat(deep)}`]) {
      const issue = quick(3000, () => refusal(() => loadProgramText(text, { limits: { ...limits, maxBytes: 10 * deep } })));
      assert.match(issue.message, new RegExp(`more than ${PROGRAM_MAX_DEPTH} levels`));
    }
  });

  test('huge numbers, and integers beyond the safe range', () => {
    assert.match(refusal(() => loadProgramText(`{"version": ${'9'.repeat(100_000)}}`, { limits })).message, /more than \d+ characters/);
    assert.match(refusal(() => loadProgramText('{"version": 9007199254740993}', { limits })).message, /beyond/);
    assert.match(refusal(() => loadProgramText('{"version": 1e400}', { limits })).message, /too large/);
    assert.match(refusal(() => loadProgramText('version: 9007199254740993\n', { limits })).message, /beyond/);
    assert.match(refusal(() => loadProgramText(`version: ${'9'.repeat(100_000)}\n`, { limits })).message, /too large|characters/);
    assert.match(refusal(() => loadProgramText('version: .inf\n', { limits })).message, /too large/);
    assert.equal(refusal(() => loadProgramText('{"x": [1, 2, 9007199254740993]}', { limits })).field, '/x/2');
  });

  test('YAML tags other than plain data', () => {
    const binary = refusal(() => loadProgramText('version: 1\nlogo: !!binary aGVsbG8=\n', { file: 'p.yaml', limits }));
    assert.equal(binary.field, '/logo');
    assert.equal(binary.line, 2);
    assert.match(binary.message, /YAML tag/);
    assert.match(refusal(() => loadProgramText('version: !custom 1\n', { limits })).message, /YAML tag/);
    assert.match(refusal(() => loadProgramText('? [a, b]\n: 1\n', { limits })).message, /key that is a list/);
    // the core tags are plain data
    assert.deepEqual(loadProgramText('code: !!str 1.10\n', { limits }).value, { code: '1.10' });
  });

  test('anchors and aliases within bounds are plain data', () => {
    const loaded = loadProgramText('owners: &o [alice, bob]\ncontrols:\n  - key: a\n    assignees: *o\n', { limits });
    assert.deepEqual((loaded.value as { controls: Array<{ assignees: string[] }> }).controls[0].assignees, ['alice', 'bob']);
  });

  test('more than one YAML document in a file', () => {
    assert.match(refusal(() => loadProgramText('version: 1\n---\nversion: 1\n', { limits })).message, /more than one YAML document/);
  });

  test('oversize bytes and too many records, named with their limits', () => {
    const big = new TextEncoder().encode(`{"controls": [${'"x",'.repeat(1000)}"x"]}`);
    assert.match(refusal(() => loadProgramBytes(big, { limits: { maxBytes: 1000, maxRecords: 10_000 } })).message, /PROGRAM_MAX_BYTES/);
    assert.match(refusal(() => loadProgramBytes(big, { limits: { maxBytes: 100_000, maxRecords: 100 } })).message, /PROGRAM_MAX_RECORDS/);
    const yaml = `controls:\n${'  - x\n'.repeat(101)}`;
    assert.match(refusal(() => loadProgramText(yaml, { limits: { maxBytes: 100_000, maxRecords: 100 } })).message, /PROGRAM_MAX_RECORDS/);
  });

  test('the NUL character, which no text holds', () => {
    const issue = refusal(() => loadProgramText('{"controls": [{"name": "a\\u0000b"}]}', { file: 'p.json', limits }));
    assert.equal(issue.field, '/controls/0/name');
    assert.equal(issue.column, 16);
  });

  test('YAML over its own limit, which JSON of the same size is not', () => {
    const small = { maxBytes: 100_000, maxRecords: 10_000, maxYamlBytes: 2048 };
    const yaml = `controls:\n${'  - x\n'.repeat(500)}`;
    assert.match(refusal(() => loadProgramText(yaml, { limits: small })).message, /PROGRAM_MAX_YAML_BYTES.*as JSON/);
    const json = JSON.stringify({ controls: Array(500).fill('xyzw') });
    assert.ok(json.length > 2048);
    assert.equal((loadProgramText(json, { limits: small }).value as { controls: string[] }).controls.length, 500);
  });

  test('bytes that are not UTF-8', () => {
    assert.match(refusal(() => loadProgramBytes(new Uint8Array([0x76, 0xff, 0xfe]), { limits })).message, /UTF-8/);
  });
});

describe('program documents: a folder is one document', () => {
  const dir = mkdtempSync(join(tmpdir(), 'program-load-'));
  test.after(() => rmSync(dir, { recursive: true, force: true }));

  test('lists concatenated in the order of the paths; a pointer maps back to its file', async () => {
    const folder = join(dir, 'ok');
    mkdirSync(join(folder, 'controls'), { recursive: true });
    writeFileSync(join(folder, '00-frameworks.yaml'), 'version: 1\nframeworks:\n  - key: soc2\n    name: SOC 2\n    requirements: []\n');
    writeFileSync(join(folder, 'controls', 'a.yaml'), 'version: 1\ncontrols:\n  - key: a\n    name: A\n');
    writeFileSync(join(folder, 'controls', 'b.json'), '{"version": 1,\n "controls": [{"key": "b", "name": "B"}]}');
    writeFileSync(join(folder, 'README.md'), '# not a document');
    writeFileSync(join(folder, '.hidden.yaml'), 'not: [valid');
    const loaded = await loadProgramPath(folder, limits);
    assert.deepEqual(loaded.value, {
      version: 1,
      frameworks: [{ key: 'soc2', name: 'SOC 2', requirements: [] }],
      controls: [
        { key: 'a', name: 'A' },
        { key: 'b', name: 'B' },
      ],
    });
    assert.deepEqual(loaded.locate('/controls/1/name'), { file: join(folder, 'controls', 'b.json'), line: 2, column: 28 });
    assert.deepEqual(loaded.locate('/controls/0/name'), { file: join(folder, 'controls', 'a.yaml'), line: 4, column: 5 });
  });

  test('a field in two files, and versions that differ, are refused naming both files', async () => {
    const folder = join(dir, 'bad');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'a.yaml'), 'version: 1\nsettings:\n  x: 1\n');
    writeFileSync(join(folder, 'b.yaml'), 'version: 2\nsettings:\n  x: 2\n');
    writeFileSync(join(folder, 'c.yaml'), 'controls: []\n');
    const error = await refusalOf(() => loadProgramPath(folder, limits));
    const issues = error.details as ProgramIssue[];
    const version = issues.find((i) => i.field === '/version');
    assert.equal(version?.file, join(folder, 'b.yaml'));
    assert.match(version!.message, /a\.yaml says 1/);
    const settings = issues.find((i) => i.field === '/settings');
    assert.equal(settings?.file, join(folder, 'b.yaml'));
    assert.equal(settings?.line, 2);
    assert.match(settings!.message, /also in .*a\.yaml/);
    assert.ok(issues.some((i) => i.file === join(folder, 'c.yaml') && /no `version`/.test(i.message)));
  });

  test('a missing path and an empty folder say so', async () => {
    assert.match((await refusalOf(() => loadProgramPath(join(dir, 'nope.yaml'), limits))).message, /does not exist/);
    mkdirSync(join(dir, 'empty'));
    assert.match((await refusalOf(() => loadProgramPath(join(dir, 'empty'), limits))).message, /no document file/);
  });
});
