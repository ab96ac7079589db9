// OSCAL catalogs at the edge (docs/oscal.md): a catalog written in OSCAL's published shape becomes
// a framework with its requirements; bad documents are refused with every problem named by a JSON
// pointer; a framework exports as a catalog that OSCAL's own catalog JSON Schema (the official
// v1.2.1 file, test/unit/fixtures/oscal/README.md) accepts, and importing the export gives back the
// same requirements in the same order. The catalogs here are written for these tests in the style
// of NIST SP 800-53; the wording is this project's.
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { ServiceError, type FieldIssue } from '../../src/shared/errors.ts';
import { FRAMEWORK_REQUIREMENTS_MAX, ProgramFramework, type ProgramRequirement } from '../../src/domain/frameworks/program-schema.ts';
import { CATALOG_ISSUES_MAX, CATALOG_NESTING_MAX, frameworkFromCatalog } from '../../src/formats/oscal/catalog-import.ts';
import { CATALOG_UUID_NAMESPACE, catalogFromFramework, type FrameworkForExport } from '../../src/formats/oscal/catalog-export.ts';
import { frameworkFromCatalogFile } from '../../src/formats/oscal/catalog-file.ts';
import { OscalCatalogDocument, OSCAL_VERSION } from '../../src/formats/oscal/catalog-shape.ts';
import { JSON_MAX_DEPTH, parseGuardedJson, readGuardedJsonFile } from '../../src/formats/oscal/guarded-json.ts';
import { URL_NAMESPACE, uuidV5 } from '../../src/shared/uuid-v5.ts';

// The official schema, validated as OSCAL's own tooling does: JSON Schema draft-07 (Ajv's default
// draft), its formats (date-time, uri, uri-reference, email) checked, regular expressions in
// Unicode mode (its token pattern uses \p{L} and \p{N}).
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;
const schemaText = readFileSync(new URL('./fixtures/oscal/oscal_catalog_schema.json', import.meta.url), 'utf8');
const schema = JSON.parse(schemaText);
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: true });
addFormats(ajv);
const validateOscalCatalog = ajv.compile(schema);

// The shapes this project declares (TypeBox, so JSON Schema): what an import gives must be a valid
// program framework, and an export must have the shape declared for it.
const validateProgramFramework = ajv.compile(ProgramFramework);
const validateExportShape = ajv.compile(OscalCatalogDocument);

function assertOscalValid(document: unknown): void {
  const valid = validateOscalCatalog(document);
  assert.ok(valid, `OSCAL's schema refuses it: ${JSON.stringify(validateOscalCatalog.errors?.slice(0, 5), null, 1)}`);
}

function assertProgramFramework(framework: unknown): void {
  assert.ok(validateProgramFramework(framework), JSON.stringify(validateProgramFramework.errors));
}

/** An OSCAL property; `extra` adds `class` or `ns`. */
const prop = (name: string, value: string, extra: Record<string, string> = {}) => ({ name, value, ...extra });
const label = (value: string, extra: Record<string, string> = {}) => prop('label', value, extra);
const WITHDRAWN = prop('status', 'withdrawn');

/** A catalog in OSCAL's published shape: families as groups, enhancements nested, one withdrawn, parts and params. */
function exampleCatalog() {
  return {
    catalog: {
      uuid: '0b6a4f63-2c1e-4d0a-9f3b-6f1e2d3c4b5a',
      metadata: {
        title: 'Example Security Controls, Rev. 2',
        'last-modified': '2026-01-15T09:30:00Z',
        version: '2.0',
        'oscal-version': '1.1.2',
      },
      controls: [
        {
          id: 'pm-0',
          title: 'Program Charter',
          props: [label('PM-0')],
        },
      ],
      groups: [
        {
          id: 'ac',
          class: 'family',
          title: 'Access Control',
          controls: [
            {
              id: 'ac-1',
              class: 'SP800-53',
              title: 'Policy and Procedures',
              params: [{ id: 'ac-1_prm_1', label: 'people or roles' }],
              // NIST's catalogs carry a zero-padded second label for assessments: the first without a class wins.
              props: [label('AC-01', { class: 'sp800-53a' }), label('AC-1'), prop('sort-id', 'ac-01')],
              parts: [
                {
                  id: 'ac-1_smt',
                  name: 'statement',
                  parts: [
                    {
                      id: 'ac-1_smt.a',
                      name: 'item',
                      props: [label('a.')],
                      prose: 'Write down an access policy and share it with {{ insert: param, ac-1_prm_1 }}.',
                      parts: [{ id: 'ac-1_smt.a.1', name: 'item', props: [label('1.')], prose: 'Review it every year.' }],
                    },
                  ],
                },
                { id: 'ac-1_gdn', name: 'guidance', prose: 'Keep the policy short enough to be read.' },
              ],
            },
            {
              id: 'ac-2',
              title: 'Account Management',
              props: [label('AC-2')],
              controls: [
                { id: 'ac-2.1', title: 'Automated Account Management', props: [label('AC-2(1)')] },
                {
                  id: 'ac-2.2',
                  title: 'Temporary Accounts',
                  props: [label('AC-2(2)'), WITHDRAWN],
                  links: [{ href: '#ac-2.1', rel: 'incorporated-into' }],
                },
                { id: 'ac-2.3', title: 'Disable Unused Accounts', props: [label('AC-2(3)')] },
              ],
            },
            {
              id: 'ac-3',
              title: 'Retired Control',
              props: [label('AC-3'), WITHDRAWN],
              controls: [{ id: 'ac-3.1', title: 'Enhancement of a Retired Control', props: [label('AC-3(1)')] }],
            },
          ],
        },
        {
          id: 'ir',
          class: 'family',
          title: 'Incident Response',
          groups: [
            {
              id: 'ir-handling',
              title: 'Handling',
              // No label: the code is the id upper-cased. A label in another namespace is someone else's.
              controls: [{ id: 'ir-4', title: 'Incident Handling', props: [label('X', { ns: 'https://example.com/ns/other' })] }],
            },
          ],
        },
      ],
      'back-matter': { resources: [{ uuid: '5d9e2c71-8a3b-4f6e-9c1d-2b7a4e6f8d0c', title: 'A reference' }] },
    },
  };
}

function issuesOf(fn: () => unknown): FieldIssue[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${error}`);
    assert.equal(error.code, 'validation_failed');
    return error.details as FieldIssue[];
  }
  assert.fail('expected validation_failed');
}

const fields = (issues: FieldIssue[]) => issues.map((i) => i.field);

test("the schema is OSCAL's own, unchanged, of the version exports declare", () => {
  assert.equal(createHash('sha256').update(schemaText).digest('hex'), 'd0de37f207cca54a90b949de6ce967647d4e22ebe92e4a4d2770ce902d4c57de');
  assert.equal(schema.$id, `http://csrc.nist.gov/ns/oscal/${OSCAL_VERSION}/oscal-catalog-schema.json`);
});

describe('importing an OSCAL catalog', () => {
  test('the example catalog is in the shape OSCAL publishes', () => {
    assertOscalValid(exampleCatalog());
  });

  test('every control and enhancement becomes a requirement in document order, withdrawn ones and their enhancements left out', () => {
    const framework = frameworkFromCatalog(exampleCatalog());
    assertProgramFramework(framework);
    assert.equal(framework.key, 'example-security-controls-rev-2');
    assert.equal(framework.name, 'Example Security Controls, Rev. 2');
    assert.deepEqual(framework.requirements, [
      { key: 'pm-0', code: 'PM-0', name: 'Program Charter' },
      { key: 'ac-1', code: 'AC-1', name: 'Policy and Procedures' },
      { key: 'ac-2', code: 'AC-2', name: 'Account Management' },
      { key: 'ac-2.1', code: 'AC-2(1)', name: 'Automated Account Management' },
      { key: 'ac-2.3', code: 'AC-2(3)', name: 'Disable Unused Accounts' },
      { key: 'ir-4', code: 'IR-4', name: 'Incident Handling' },
    ]);
  });

  test('the key can be given; titles and labels are trimmed and NFC; OSCAL properties may name their namespace; withdrawn in any case', () => {
    const doc = exampleCatalog();
    doc.catalog.metadata.title = '  Cafe\u0301 Controls ';
    doc.catalog.controls[0].props = [label(' PM-0 '), prop('status', 'Withdrawn', { ns: 'http://csrc.nist.gov/ns/oscal' })];
    // A label in OSCAL's own namespace, written out, is a label.
    doc.catalog.groups[1].groups![0].controls![0].props = [label('IR-4 (custom)', { ns: 'http://csrc.nist.gov/ns/oscal' })];
    const framework = frameworkFromCatalog(doc, { key: 'my-framework' });
    assert.equal(framework.key, 'my-framework');
    assert.equal(framework.name, 'Café Controls');
    assert.equal(framework.requirements[0].key, 'ac-1');
    assert.equal(framework.requirements.at(-1)!.code, 'IR-4 (custom)');
    assert.equal(frameworkFromCatalog(doc).key, 'cafe-controls');
  });

  test('a catalog with no controls is a framework with no requirements', () => {
    const doc = { catalog: { uuid: '0b6a4f63-2c1e-4d0a-9f3b-6f1e2d3c4b5a', metadata: { title: 'Empty', 'oscal-version': '1.0.0' } } };
    assert.deepEqual(frameworkFromCatalog(doc), { key: 'empty', name: 'Empty', requirements: [] });
  });
});

describe('a catalog that does not validate is refused with every problem, each at its JSON pointer', () => {
  test('not a catalog at all', () => {
    assert.deepEqual(fields(issuesOf(() => frameworkFromCatalog([1, 2]))), ['']);
    assert.deepEqual(fields(issuesOf(() => frameworkFromCatalog({ catalogue: {} }))), ['/catalog']);
    const profile = issuesOf(() => frameworkFromCatalog({ profile: { uuid: 'x', imports: [] } }));
    assert.equal(profile[0].field, '/profile');
    assert.match(profile[0].message, /resolve it into a catalog/);
  });

  test('many problems at once, in document order', () => {
    const doc = exampleCatalog() as any;
    delete doc.catalog.uuid;
    doc.catalog.metadata.title = '   ';
    doc.catalog.metadata['oscal-version'] = '2.0.0';
    const ac = doc.catalog.groups[0].controls;
    delete ac[0].id;
    ac[1].title = 42;
    ac[1].controls[0].id = 'ac-2';
    ac[1].controls[2].props = [label('x'.repeat(101))];
    ac[1].controls.push({ id: '9-bad', title: 'Starts with a digit' });
    ac[1].controls.push({ id: 'ac-9', title: 'Line\nbreak', props: { name: 'label' } });
    doc.catalog.groups[1].groups[0].controls.push('not a control', { id: 'ir-5', title: 'Same code', props: [label('IR-4')] });
    doc.catalog.groups.push({ title: 'Bad lists', controls: { id: 'x' } });
    const issues = issuesOf(() => frameworkFromCatalog(doc));
    assert.deepEqual(fields(issues), [
      '/catalog/uuid',
      '/catalog/metadata/title',
      '/catalog/metadata/oscal-version',
      '/catalog/groups/0/controls/0/id',
      '/catalog/groups/0/controls/1/title',
      '/catalog/groups/0/controls/1/controls/0/id',
      '/catalog/groups/0/controls/1/controls/2/props/0/value',
      '/catalog/groups/0/controls/1/controls/3/id',
      '/catalog/groups/0/controls/1/controls/4/props',
      '/catalog/groups/0/controls/1/controls/4/title',
      '/catalog/groups/1/groups/0/controls/1',
      '/catalog/groups/1/groups/0/controls/2/props/0/value',
      '/catalog/groups/2/controls',
    ]);
    const message = (field: string) => issues.find((i) => i.field === field)!.message;
    assert.match(message('/catalog/uuid'), /is required/);
    assert.match(message('/catalog/metadata/title'), /must not be blank/);
    assert.match(message('/catalog/metadata/oscal-version'), /only OSCAL 1\.x/);
    assert.match(message('/catalog/groups/0/controls/0/id'), /is required/);
    assert.match(message('/catalog/groups/0/controls/1/title'), /must be a string/);
    assert.match(
      message('/catalog/groups/0/controls/1/controls/0/id'),
      /the id of \/catalog\/groups\/0\/controls\/1 too; control ids must be unique/,
    );
    assert.match(message('/catalog/groups/0/controls/1/controls/2/props/0/value'), /101 characters long; .* at most 100/);
    assert.match(message('/catalog/groups/0/controls/1/controls/3/id'), /must be an OSCAL token/);
    assert.match(message('/catalog/groups/0/controls/1/controls/4/title'), /control or invisible/);
    assert.match(
      message('/catalog/groups/1/groups/0/controls/2/props/0/value'),
      /"IR-4", as \/catalog\/groups\/1\/groups\/0\/controls\/0\/id does/,
    );
  });

  test('the list stops at the bound', () => {
    const controls = Array.from({ length: 3 * CATALOG_ISSUES_MAX }, (_, i) => ({ id: `c-${i}` }));
    const doc = { catalog: { uuid: '0b6a4f63-2c1e-4d0a-9f3b-6f1e2d3c4b5a', metadata: { title: 'T', 'oscal-version': '1.1.2' }, controls } };
    try {
      frameworkFromCatalog(doc);
      assert.fail('expected validation_failed');
    } catch (error) {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.details.length, CATALOG_ISSUES_MAX);
      assert.equal((error.details[0] as FieldIssue).field, '/catalog/controls/0/title');
      assert.match(error.message, new RegExp(`the first ${CATALOG_ISSUES_MAX} problems`));
    }
  });

  test('more requirements than a framework may have', () => {
    const controls = Array.from({ length: FRAMEWORK_REQUIREMENTS_MAX + 1 }, (_, i) => ({ id: `c-${i}`, title: `Control ${i}` }));
    const doc = { catalog: { uuid: '0b6a4f63-2c1e-4d0a-9f3b-6f1e2d3c4b5a', metadata: { title: 'T', 'oscal-version': '1.1.2' }, controls } };
    const issues = issuesOf(() => frameworkFromCatalog(doc));
    assert.deepEqual(fields(issues), ['/catalog']);
    assert.match(issues[0].message, new RegExp(`more than ${FRAMEWORK_REQUIREMENTS_MAX} controls`));
    // Withdrawn controls do not count.
    controls.push({ id: 'c-extra', title: 'Gone', props: [WITHDRAWN] } as never);
    controls.shift();
    assert.equal(frameworkFromCatalog(doc).requirements.length, FRAMEWORK_REQUIREMENTS_MAX);
  });

  test('controls nested deeper than the bound', () => {
    const root: any = { id: 'c-0', title: 'Level 0' };
    let node = root;
    for (let depth = 1; depth < CATALOG_NESTING_MAX + 5; depth++) {
      node.controls = [{ id: `c-${depth}`, title: `Level ${depth}` }];
      node = node.controls[0];
    }
    const doc = {
      catalog: { uuid: '0b6a4f63-2c1e-4d0a-9f3b-6f1e2d3c4b5a', metadata: { title: 'T', 'oscal-version': '1.1.2' }, controls: [root] },
    };
    const issues = issuesOf(() => frameworkFromCatalog(doc));
    assert.equal(issues.length, 1);
    assert.equal(issues[0].field, `/catalog${'/controls/0'.repeat(CATALOG_NESTING_MAX)}/controls`);
    assert.match(issues[0].message, new RegExp(`more than ${CATALOG_NESTING_MAX}`));
  });

  test('a key that is given must be a key; a title with no letter or digit cannot make one', () => {
    assert.deepEqual(fields(issuesOf(() => frameworkFromCatalog(exampleCatalog(), { key: 'has space' }))), ['key']);
    const doc = exampleCatalog();
    doc.catalog.metadata.title = '— * —';
    const issues = issuesOf(() => frameworkFromCatalog(doc));
    assert.deepEqual(fields(issues), ['/catalog/metadata/title']);
    assert.match(issues[0].message, /give the key/);
  });
});

const framework: FrameworkForExport = {
  id: '2d0f5b7e-9a41-4c8e-b6d3-1f2a3b4c5d6e',
  name: 'Customer Trust Program',
  requirements: [
    { key: 'ct-1', code: 'CT-1', name: 'Inventory of Systems' },
    { key: 'ct-1.1', code: 'CT-1(1)', name: 'Automated Inventory' },
    { code: 'CT 2 (b)', name: 'Code Without a Key' },
    { key: '7-days', code: '7', name: 'Key That Is Not a Token' },
    { code: '§ 4.2', name: 'Section Sign' },
    { code: 'ct-1', name: 'Lower-Case Code Clashing With a Key' },
    { key: 'Ünïcode_Key', code: 'Ü-1', name: 'Résumé of *markdown* names' },
  ],
};
const LAST_MODIFIED = Date.UTC(2026, 10, 27, 4, 0, 0, 123);

describe('exporting a framework as an OSCAL catalog', () => {
  test("OSCAL's own catalog schema accepts the export", () => {
    const document = catalogFromFramework(framework, { lastModified: LAST_MODIFIED });
    assertOscalValid(document);
    assert.ok(validateExportShape(document), JSON.stringify(validateExportShape.errors));
    assert.deepEqual(document.catalog.metadata, {
      title: 'Customer Trust Program',
      'last-modified': '2026-11-27T04:00:00Z',
      version: '2026-11-27T04:00:00Z',
      'oscal-version': OSCAL_VERSION,
    });
    assert.deepEqual(
      document.catalog.controls!.map((c) => [c.id, c.props![0].value, c.title]),
      [
        ['ct-1', 'CT-1', 'Inventory of Systems'],
        ['ct-1.1', 'CT-1(1)', 'Automated Inventory'],
        ['ct-2-b', 'CT 2 (b)', 'Code Without a Key'],
        ['req-7-days', '7', 'Key That Is Not a Token'],
        ['req-4.2', '§ 4.2', 'Section Sign'],
        ['ct-1-2', 'ct-1', 'Lower-Case Code Clashing With a Key'],
        ['Ünïcode_Key', 'Ü-1', 'Résumé of *markdown* names'],
      ],
    );
  });

  test('the same framework exports the same uuid, a name-based UUID of its ID; another framework another', () => {
    const once = catalogFromFramework(framework, { lastModified: LAST_MODIFIED });
    const later = catalogFromFramework({ ...framework, name: 'Renamed' }, { lastModified: LAST_MODIFIED + 86_400_000, version: '3' });
    assert.equal(once.catalog.uuid, later.catalog.uuid);
    assert.equal(once.catalog.uuid, uuidV5(CATALOG_UUID_NAMESPACE, framework.id));
    assert.equal(later.catalog.metadata.version, '3');
    assert.notEqual(catalogFromFramework({ ...framework, id: 'another' }, { lastModified: LAST_MODIFIED }).catalog.uuid, once.catalog.uuid);
  });

  test('UUIDv5 matches the RFC algorithm (reference values computed independently)', () => {
    assert.equal(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org'), '886313e1-3b8a-5372-9b90-0c9aee199e5d');
    assert.equal(uuidV5(URL_NAMESPACE, 'https://example.com/a'), '6639460f-3425-5329-8097-a58f06127860');
  });

  test('a framework with no requirements is a valid catalog without controls', () => {
    const document = catalogFromFramework({ id: 'f', name: 'Nothing Yet', requirements: [] }, { lastModified: LAST_MODIFIED });
    assertOscalValid(document);
    assert.equal(document.catalog.controls, undefined);
    assert.deepEqual(frameworkFromCatalog(document).requirements, []);
  });

  test('any names and codes export to a catalog OSCAL accepts (property)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 });
    fc.assert(
      fc.property(
        text,
        fc.array(fc.record({ key: fc.option(text, { nil: undefined }), code: text, name: text }), { maxLength: 12 }),
        (name, requirements) => {
          assertOscalValid(catalogFromFramework({ id: 'f-1', name, requirements }, { lastModified: LAST_MODIFIED }));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('round trip', () => {
  const requirementsOf = (f: FrameworkForExport) => f.requirements.map(({ code, name }) => ({ code, name }));

  test('importing an export gives back the same codes and names in the same order, and keys that were tokens', () => {
    const back = frameworkFromCatalog(catalogFromFramework(framework, { lastModified: LAST_MODIFIED }), { key: 'customer-trust' });
    assert.equal(back.name, framework.name);
    assert.deepEqual(
      back.requirements.map(({ code, name }) => ({ code, name })),
      requirementsOf(framework),
    );
    assert.deepEqual(
      back.requirements.map((r) => r.key).filter((k) => framework.requirements.some((r) => r.key === k)),
      ['ct-1', 'ct-1.1', 'Ünïcode_Key'],
    );
  });

  test('an imported catalog exports and imports to the same framework, keys included', () => {
    const imported = frameworkFromCatalog(exampleCatalog());
    const again = frameworkFromCatalog(
      catalogFromFramework({ id: 'f', name: imported.name, requirements: imported.requirements }, { lastModified: LAST_MODIFIED }),
    );
    assert.deepEqual(again, imported);
  });

  test('any framework with typed names and distinct codes survives the round trip (property)', () => {
    // What a program document accepts: trimmed, not blank, no control or invisible characters, NFC.
    const typed = (max: number) =>
      fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: max })
        .map((s) =>
          s
            .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
            .normalize('NFC')
            .trim(),
        )
        .filter((s) => s !== '' && s.length <= max);
    fc.assert(
      fc.property(
        typed(60),
        fc.uniqueArray(fc.record({ code: typed(20), name: typed(60) }), { selector: (r) => r.code, maxLength: 15 }),
        (name, requirements) => {
          const back = frameworkFromCatalog(catalogFromFramework({ id: 'f-1', name, requirements }, { lastModified: LAST_MODIFIED }), {
            key: 'k',
          });
          assertProgramFramework(back);
          assert.equal(back.name, name);
          assert.deepEqual(
            back.requirements.map(({ code, name }): Omit<ProgramRequirement, 'key'> => ({ code, name })),
            requirements.map(({ code, name }) => ({ code, name })),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('reading a JSON file with guards', () => {
  test('nesting deeper than the bound is refused, whatever the size', () => {
    for (const text of ['['.repeat(JSON_MAX_DEPTH + 1), `${'['.repeat(200_000)}${']'.repeat(200_000)}`]) {
      const issues = issuesOf(() => parseGuardedJson(text));
      assert.equal(issues[0].field, '');
      assert.match(
        issues[0].message,
        new RegExp(`nested more than ${JSON_MAX_DEPTH} levels deep \\(at line 1, column ${JSON_MAX_DEPTH + 1}\\)`),
      );
    }
    assert.deepEqual(
      parseGuardedJson(`${'['.repeat(JSON_MAX_DEPTH)}${']'.repeat(JSON_MAX_DEPTH)}`),
      JSON.parse(`${'['.repeat(JSON_MAX_DEPTH)}${']'.repeat(JSON_MAX_DEPTH)}`),
    );
    // Brackets inside strings, escaped quotes included, are text.
    assert.deepEqual(parseGuardedJson(`{"a": "\\"${'['.repeat(500)}"}`), { a: `"${'['.repeat(500)}` });
  });

  test('a huge number is refused with where it is', () => {
    const issues = issuesOf(() => parseGuardedJson(`{\n  "n": 1${'0'.repeat(5_000_000)}\n}`));
    assert.match(issues[0].message, /number longer than 40 characters at line 2, column 8/);
    assert.deepEqual(parseGuardedJson('{"n": -1.5e+300}'), { n: -1.5e300 });
  });

  test('invalid JSON says where', () => {
    const issues = issuesOf(() => parseGuardedJson('{\n  "a": 1,\n}'));
    assert.match(issues[0].message, /is not valid JSON \(at line 3, column 1\)/);
  });

  test('a catalog file is read; one over the size limit, not UTF-8, missing or not a file is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oscal-'));
    try {
      const file = join(dir, 'catalog.json');
      const text = JSON.stringify(exampleCatalog(), null, 2);
      writeFileSync(file, `\uFEFF${text}`);
      const framework = await frameworkFromCatalogFile(file, { key: 'from-file' });
      assert.equal(framework.key, 'from-file');
      assert.deepEqual(framework, frameworkFromCatalog(exampleCatalog(), { key: 'from-file' }));

      await assert.rejects(frameworkFromCatalogFile(file, { maxBytes: 1000 }), (error: ServiceError) => {
        assert.equal(error.code, 'validation_failed');
        assert.match((error.details[0] as FieldIssue).message, /is 5\.\d KiB, over the limit of 1000 bytes/);
        return true;
      });
      writeFileSync(file, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]));
      await assert.rejects(frameworkFromCatalogFile(file), /is not UTF-8 text/);
      await assert.rejects(readGuardedJsonFile(join(dir, 'missing.json'), { maxBytes: 1000 }), /does not exist/);
      await assert.rejects(readGuardedJsonFile(dir, { maxBytes: 1000 }), /is not a regular file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
