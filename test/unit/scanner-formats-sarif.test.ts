// SARIF 2.1.0 → scanned findings (src/formats/sarif/parse.ts), as docs/scanner-formats.md
// documents it. The logs are written here in the OASIS specification's shape.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseScan } from '../../src/formats/scanners/formats.ts';
import { chunked, readScan, scanError } from './scanner-formats-read.ts';

type Result = Record<string, unknown>;

const location = (uri: string, startLine: number) => ({ physicalLocation: { artifactLocation: { uri }, region: { startLine } } });

function sarif(results: Result[], tool: Record<string, unknown> = { name: 'CodeQL', rules: RULES }, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{ tool: { driver: tool }, results, ...extra }],
  });
}

const RULES = [
  {
    id: 'js/sql-injection',
    name: 'SqlInjection',
    shortDescription: { text: 'Database query built from user-controlled sources' },
    fullDescription: { text: 'Building a database query from user-controlled sources is vulnerable to insertion of malicious code.' },
    help: { text: 'Use parameterized queries.', markdown: '# Use parameterized queries' },
    helpUri: 'https://example.com/rules/sql-injection',
    defaultConfiguration: { level: 'error' },
    properties: { 'security-severity': '8.8', tags: ['security'] },
  },
  { id: 'js/unused-variable', shortDescription: { text: 'Unused variable' }, defaultConfiguration: { level: 'note' } },
];

const sqlAt = (uri: string, line: number, extra: Result = {}): Result => ({
  ruleId: 'js/sql-injection',
  ruleIndex: 0,
  message: { text: 'This query depends on a {0}.', arguments: ['user-provided value'] },
  locations: [location(uri, line)],
  ...extra,
});

describe('SARIF 2.1.0', () => {
  test('a result maps to a finding as documented: rule text, security-severity, help, file, source', async () => {
    const { findings, summary } = await readScan(
      'sarif',
      sarif([sqlAt('src/db.js', 42)], undefined, { versionControlProvenance: [{ repositoryUri: 'https://github.com/acme/shop' }] }),
    );
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.source, 'github', 'CodeQL is GitHub code scanning');
    assert.equal(f?.tool, 'CodeQL');
    assert.equal(f?.title, 'Database query built from user-controlled sources');
    assert.equal(f?.description, 'This query depends on a user-provided value.', 'arguments are filled in');
    assert.equal(f?.remediation, 'Use parameterized queries.\n\nSee https://example.com/rules/sql-injection');
    assert.equal(f?.severity, 'high', 'security-severity 8.8 is high on the CVSS scale');
    assert.equal(f?.cvssScore, 8.8);
    assert.equal(f?.cveId, '');
    assert.equal(f?.fixAvailable, 'no');
    assert.deepEqual(f?.affectedResources, [{ name: 'src/db.js', type: 'file', tags: [] }]);
    assert.deepEqual(f?.verdict, { status: 'open' });
    assert.equal(f?.at, '/runs/0/results/0');
    assert.match(f?.key ?? '', /^js-sql-injection~[A-Za-z0-9_-]{16}$/);
    assert.deepEqual(summary, { format: 'sarif', tool: 'CodeQL', scope: 'https://github.com/acme/shop', findings: 1, skipped: 0 });
  });

  test('two results that differ only in location stay two findings', async () => {
    const sameFile = await readScan('sarif', sarif([sqlAt('src/db.js', 42), sqlAt('src/db.js', 43)]));
    const otherFile = await readScan('sarif', sarif([sqlAt('src/db.js', 42), sqlAt('src/admin.js', 42)]));
    for (const { findings } of [sameFile, otherFile]) {
      assert.equal(findings.length, 2);
      assert.notEqual(findings[0]?.key, findings[1]?.key);
    }
    // …and so do two results whose tool fingerprints differ only in their occurrence
    const partial = await readScan(
      'sarif',
      sarif([
        sqlAt('src/db.js', 42, { partialFingerprints: { primaryLocationLineHash: 'a1b2c3:1' } }),
        sqlAt('src/db.js', 42, { partialFingerprints: { primaryLocationLineHash: 'a1b2c3:2' } }),
      ]),
    );
    assert.notEqual(partial.findings[0]?.key, partial.findings[1]?.key);
  });

  test('the same result in a later scan gives the same key; with fingerprints, also after its line moved', async () => {
    const first = await readScan(
      'sarif',
      sarif([sqlAt('src/db.js', 42), sqlAt('src/x.js', 1, { ruleId: 'js/unused-variable', ruleIndex: 1 })]),
    );
    const again = await readScan(
      'sarif',
      sarif([sqlAt('src/x.js', 1, { ruleId: 'js/unused-variable', ruleIndex: 1 }), sqlAt('src/db.js', 42)]),
    );
    assert.deepEqual(new Set(first.findings.map((f) => f.key)), new Set(again.findings.map((f) => f.key)));

    const fp = { partialFingerprints: { primaryLocationLineHash: 'feedbeef:1' } };
    const before = await readScan('sarif', sarif([sqlAt('src/db.js', 42, fp)]));
    const moved = await readScan('sarif', sarif([sqlAt('src/db.js', 57, fp)]));
    assert.equal(before.findings[0]?.key, moved.findings[0]?.key, 'a line added above does not make a new finding');
    // without fingerprints the line is part of the identity
    const plainMoved = await readScan('sarif', sarif([sqlAt('src/db.js', 57)]));
    const plain = await readScan('sarif', sarif([sqlAt('src/db.js', 42)]));
    assert.notEqual(plain.findings[0]?.key, plainMoved.findings[0]?.key);
  });

  test('the same rule and place in two tools are two findings', async () => {
    const codeql = await readScan('sarif', sarif([sqlAt('src/db.js', 42)]));
    const semgrep = await readScan('sarif', sarif([sqlAt('src/db.js', 42)], { name: 'Semgrep OSS', rules: RULES }));
    assert.notEqual(codeql.findings[0]?.key, semgrep.findings[0]?.key);
    assert.equal(semgrep.findings[0]?.source, 'import', 'Semgrep is not one of the spec’s sources');
  });

  test('the source is the tool’s when it is one of the spec’s', async () => {
    const cases: [string, string][] = [
      ['CodeQL', 'github'],
      ['Snyk Open Source', 'snyk'],
      ['SnykCode', 'snyk'],
      ['SonarQube', 'sonarcloud'],
      ['Trivy', 'import'],
      ['Grype', 'import'],
    ];
    for (const [name, source] of cases) {
      const { findings } = await readScan('sarif', sarif([sqlAt('a.js', 1)], { name, rules: RULES }));
      assert.equal(findings[0]?.source, source, name);
    }
  });

  test('severity: security-severity first, else the result’s level, else the rule’s default level, else warning', async () => {
    const noScore = [{ id: 'r1', defaultConfiguration: { level: 'note' } }, { id: 'r2' }];
    const { findings } = await readScan(
      'sarif',
      sarif(
        [
          { ruleId: 'r1', message: { text: 'a' }, level: 'error' },
          { ruleId: 'r1', message: { text: 'b' } },
          { ruleId: 'r2', message: { text: 'c' } },
          { ruleId: 'r2', message: { text: 'd' }, properties: { 'security-severity': '9.8' } },
        ],
        { name: 'Some Linter', rules: noScore },
      ),
    );
    assert.deepEqual(
      findings.map((f) => f.severity),
      ['high', 'low', 'medium', 'critical'],
    );
  });

  test('a CVE rule (as Trivy and Grype write SARIF) gives the cveId', async () => {
    const rules = [
      { id: 'CVE-2024-0727', shortDescription: { text: 'openssl: denial of service' }, properties: { 'security-severity': '5.5' } },
    ];
    const grypeRule = [{ id: 'CVE-2021-44228-log4j-core', properties: { 'security-severity': '10.0' } }];
    const trivy = await readScan(
      'sarif',
      sarif([{ ruleId: 'CVE-2024-0727', ruleIndex: 0, message: { text: 'Package: libssl3' } }], { name: 'Trivy', rules }),
    );
    const grype = await readScan(
      'sarif',
      sarif([{ ruleId: 'CVE-2021-44228-log4j-core', message: { text: 'log4j' } }], { name: 'Grype', rules: grypeRule }),
    );
    assert.equal(trivy.findings[0]?.cveId, 'CVE-2024-0727');
    assert.equal(trivy.findings[0]?.severity, 'medium');
    assert.equal(grype.findings[0]?.cveId, 'CVE-2021-44228');
    assert.equal(grype.findings[0]?.severity, 'critical');
  });

  test('suppressions: accepted → ignored with the justification; under review or rejected → open; kind pass → skipped', async () => {
    const { findings, summary } = await readScan(
      'sarif',
      sarif([
        sqlAt('a.js', 1, { suppressions: [{ kind: 'inSource', justification: 'Test fixture, never deployed' }] }),
        sqlAt('a.js', 2, { suppressions: [{ kind: 'external', status: 'underReview', justification: 'Checking' }] }),
        sqlAt('a.js', 3, { suppressions: [{ kind: 'external', status: 'rejected' }] }),
        sqlAt('a.js', 4, { suppressions: [{ kind: 'external' }] }),
        sqlAt('a.js', 5, { baselineState: 'absent' }),
        sqlAt('a.js', 6, { kind: 'pass' }),
        sqlAt('a.js', 7, { kind: 'notApplicable' }),
      ]),
    );
    assert.deepEqual(
      findings.map((f) => f.verdict),
      [
        { status: 'ignored', justification: 'Test fixture, never deployed' },
        { status: 'open' },
        { status: 'open' },
        { status: 'ignored', justification: 'Suppressed by the tool (external), with no justification given.' },
        { status: 'closed', justification: 'The tool reports it absent from this scan (baselineState “absent”).' },
      ],
    );
    assert.equal(summary.skipped, 2);
  });

  test('rules are found by ruleIndex, by rule.index in an extension, or by ID', async () => {
    const log = JSON.stringify({
      version: '2.1.0',
      runs: [
        {
          tool: {
            driver: { name: 'CodeQL', rules: [{ id: 'd/0', shortDescription: { text: 'Driver rule' } }] },
            extensions: [{ name: 'codeql/js-queries', rules: [{ id: 'e/0', shortDescription: { text: 'Extension rule' } }] }],
          },
          results: [
            { ruleId: 'd/0', message: { text: 'm1' } },
            { rule: { id: 'e/0', index: 0, toolComponent: { index: 0 } }, message: { text: 'm2' } },
          ],
        },
      ],
    });
    const { findings } = await readScan('sarif', log);
    assert.deepEqual(
      findings.map((f) => f.title),
      ['Driver rule', 'Extension rule'],
    );
  });

  test('a message may name the rule’s message string by id', async () => {
    const rules = [{ id: 'r', messageStrings: { default: { text: 'Variable {0} is never read.' } } }];
    const { findings } = await readScan(
      'sarif',
      sarif([{ ruleId: 'r', message: { id: 'default', arguments: ['total'] } }], { name: 'Lint', rules }),
    );
    assert.equal(findings[0]?.description, 'Variable total is never read.');
  });

  test('more results before their tool than the bound are refused, naming it', async () => {
    const results = Array.from({ length: 10_001 }, (_, i) => JSON.stringify({ ruleId: 'r', message: { text: `m${i}` } })).join(',');
    const error = await scanError('sarif', `{"version":"2.1.0","runs":[{"results":[${results}],"tool":{"driver":{"name":"T"}}}]}`, 65536);
    assert.deepEqual(error, {
      field: '/runs/0/results/10000',
      message: 'expected the run’s tool before its results: more than 10000 results come before runs[].tool',
      yielded: 0,
    });
  });

  test('results written before their run’s tool are held (bounded) and mapped once the tool is read', async () => {
    const log = `{"version":"2.1.0","runs":[{"results":[${JSON.stringify(sqlAt('a.js', 1))}],"tool":{"driver":${JSON.stringify({ name: 'CodeQL', rules: RULES })}}}]}`;
    const { findings } = await readScan('sarif', log);
    assert.equal(findings[0]?.title, 'Database query built from user-controlled sources');
    const noTool = `{"version":"2.1.0","runs":[{"results":[${JSON.stringify(sqlAt('a.js', 1))}]}]}`;
    assert.deepEqual(await scanError('sarif', noTool), {
      field: '/runs/0/tool',
      message: 'expected the run’s tool (runs[].tool.driver.name)',
      yielded: 0,
    });
  });

  test('long texts are shortened to the API’s bounds, not refused', async () => {
    const long = 'x'.repeat(5000);
    const { findings } = await readScan(
      'sarif',
      sarif([{ ruleId: `rule/${'y'.repeat(300)}`, message: { text: long }, locations: [location(`src/${'d/'.repeat(200)}f.js`, 1)] }], {
        name: 'Tool',
        rules: [],
      }),
    );
    const [f] = findings;
    assert.equal(f?.title.length, 255);
    assert.ok(f?.title.endsWith('…'));
    assert.equal(f?.description?.length, 750);
    assert.ok((f?.affectedResources[0]?.name.length ?? 0) <= 255);
    assert.ok((f?.key.length ?? 0) <= 64);
  });

  test('bad files: the JSON pointer of the problem and what was expected', async () => {
    const cases: [string, { field: string; message: RegExp }][] = [
      ['{"version":"2.1.0","runs":{}}', { field: '/runs', message: /expected the runs \(a list\)/ }],
      ['{"version":"2.0.0","runs":[]}', { field: '/version', message: /only SARIF 2\.1\.0/ }],
      ['{"runs":[]}', { field: '/version', message: /has “version”/ }],
      ['[]', { field: '', message: /expected a SARIF 2\.1\.0 log \(a JSON object\), found a list/ }],
      ['{"version":"2.1.0","runs":[{"tool":{"driver":{}}}]}', { field: '/runs/0/tool/driver/name', message: /the tool’s name/ }],
      [
        '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"T"}},"results":[{"ruleId":"r","message":{"text":"a"},"locations":"here"}]}]}',
        { field: '/runs/0/results/0/locations', message: /a list/ },
      ],
      [
        '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"T"}},"results":[{"ruleId":"r",}]}]}',
        { field: '/runs/0/results/0/ruleId', message: /member name/ },
      ],
      ['{"version":"2.1.0","runs":[', { field: '/runs/0', message: /ends before/ }],
    ];
    for (const [text, expected] of cases) {
      const error = await scanError('sarif', text, 7);
      assert.equal(error.field, expected.field, text);
      assert.match(error.message, expected.message, text);
    }
  });

  test('an error stops the reading: nothing is yielded after it', async () => {
    const text = sarif([
      sqlAt('a.js', 1),
      sqlAt('a.js', 2),
      { ruleId: 'r', message: { text: 'x' }, level: 5 } as Result,
      sqlAt('a.js', 4),
    ]).replace('"level":5', '"level":5,,');
    const error = await scanError('sarif', text, 16);
    assert.equal(error.yielded, 2);
    assert.equal(error.field, '/runs/0/results/2/level');
  });

  test('100,000 results stream with heap growth far below the file’s size', async () => {
    const count = 100_000;
    async function* generated() {
      yield `{"version":"2.1.0","runs":[{"tool":{"driver":${JSON.stringify({ name: 'CodeQL', rules: RULES })}},"results":[`;
      for (let i = 0; i < count; i += 1000) {
        const batch: string[] = [];
        for (let j = i; j < i + 1000; j++) batch.push(JSON.stringify(sqlAt(`src/file${j % 500}.js`, j)));
        yield `${i ? ',' : ''}${batch.join(',')}`;
      }
      yield ']}]}';
    }
    let bytes = 0;
    async function* counted() {
      for await (const chunk of generated()) {
        bytes += Buffer.byteLength(chunk);
        yield* chunked(chunk, 64 * 1024);
      }
    }
    // What stays reachable is measured after a full collection (node's gc, switched on here).
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    let retained = 0;
    let n = 0;
    for await (const _ of parseScan('sarif', counted())) {
      n += 1;
      if (n % 20_000 === 0) {
        gc();
        retained = Math.max(retained, process.memoryUsage().heapUsed - before);
      }
    }
    assert.equal(n, count);
    // The file is ~24 MB; a whole-document parse keeps several times that. bench/scanner-parse.ts
    // prints the real figures (time and peak RSS); this bound is loose on purpose.
    assert.ok(bytes > 20_000_000, `file of ${bytes} bytes`);
    assert.ok(retained < 16_000_000, `${Math.round(retained / 1e6)} MB kept after ${n} results of a ${Math.round(bytes / 1e6)} MB file`);
  });
});
