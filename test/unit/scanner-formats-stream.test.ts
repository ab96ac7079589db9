// What every scanner format shares (src/formats/scanners/): reading in chunks of any size, the
// JSON pointer of a malformed or wrong file, the known formats, and the finding key.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { advisoryKey, packageIdentity, purlIdentity, ruleKey } from '../../src/formats/scanners/finding-key.ts';
import { isScannerFormat, SCANNER_FORMATS, type ScannerFormat, unknownFormatIssue } from '../../src/formats/scanners/formats.ts';
import { MAX_SCANNED_KEY, SCANNED_KEY_PATTERN } from '../../src/domain/vulnerabilities/scanned-finding.ts';
import { fixture, readScan, scanError } from './scanner-formats-read.ts';

const FIXTURES: Record<Exclude<ScannerFormat, 'sarif'>, string> = {
  trivy: 'trivy-image.json',
  grype: 'grype-image.json',
  osv: 'osv-lockfile.json',
  cyclonedx: 'cyclonedx-vex.json',
  openvex: 'openvex.json',
  'cyclonedx-xml': 'cyclonedx-vex.xml',
};
const SARIF = JSON.stringify({
  version: '2.1.0',
  runs: [{ tool: { driver: { name: 'Semgrep OSS' } }, results: [{ ruleId: 'r', message: { text: 'Ünïcødé 🚀 in a message' } }] }],
});
/** A format's other shapes (Trivy's Kubernetes reports, and its list from before 0.20). */
const MORE: [ScannerFormat, string][] = [
  ['trivy', 'trivy-k8s.json'],
  ['trivy', 'trivy-k8s-legacy.json'],
  ['trivy', 'trivy-list.json'],
];
const files = (): [ScannerFormat, string][] => [
  ['sarif', SARIF],
  ...[...Object.entries(FIXTURES), ...MORE.map(([f, name]) => [f, name])].map(
    ([f, name]) => [f as ScannerFormat, fixture(name as string)] as [ScannerFormat, string],
  ),
];

describe('scanner files read as streams', () => {
  test('chunks of any size (one byte, splitting multi-byte characters) read the same findings', async () => {
    for (const [format, text] of files()) {
      const whole = await readScan(format, text, 1 << 20);
      const bytes = await readScan(format, text, 1);
      assert.deepEqual(bytes, whole, format);
      assert.ok(whole.findings.length > 0, format);
    }
    const [f] = (await readScan('sarif', SARIF, 1)).findings;
    assert.equal(f?.description, 'Ünïcødé 🚀 in a message');
  });

  test('a file of another format is recognised at its first telling member, before any finding', async () => {
    for (const [actual, text] of files())
      for (const named of SCANNER_FORMATS) {
        if (named === actual) continue;
        const error = await scanError(named, text);
        assert.equal(error.yielded, 0, `${actual} read as ${named}`);
        assert.match(error.message, /^expected /, `${actual} read as ${named}: ${error.message}`);
      }
    const trivyAsSarif = await scanError('sarif', fixture('trivy-image.json'));
    assert.deepEqual(trivyAsSarif, {
      field: '/SchemaVersion',
      message:
        'expected a SARIF 2.1.0 log, but the file has “SchemaVersion”, so it looks like a Trivy JSON report: send it with format trivy',
      yielded: 0,
    });
  });

  test('malformed JSON: the place as a JSON pointer and what was expected', async () => {
    const cases: [string, string, RegExp][] = [
      ['', '', /found an empty file/],
      ['   \n', '', /found an empty file/],
      ['<?xml version="1.0"?><bom xmlns="http://cyclonedx.org/schema/bom/1.5"/>', '', /starts with “<” \(XML\?\)/],
      ['{"version":"2.1.0","runs":[]} {}', '', /expected the end of the file/],
      [
        '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"T"}},"results":[{"ruleId":"r" "x":1}]}]}',
        '/runs/0/results/0/ruleId',
        /expected “,” or “}”/,
      ],
      [
        '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"T"}},"results":[{"ruleId":tru}]}]}',
        '/runs/0/results/0/ruleId',
        /expected valid JSON/,
      ],
      ['{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"T\u0001"}}}]}', '/runs/0/tool/driver/name', /expected valid JSON/],
      [`{"version":"2.1.0","deep":${'['.repeat(100)}${']'.repeat(100)},"runs":[]}`, `/deep${'/0'.repeat(63)}`, /at most 64 levels/],
      [
        '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"T"}},"results":[{"ruleId":"r","message":{"text":"a"}}',
        '/runs/0/results/0',
        /ends before/,
      ],
      ['{"a/b~c":{"version":1', '/a~1b~0c/version', /ends before/],
      ['{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"Tri', '/runs/0/tool/driver/name', /ends in the middle of a value/],
      [
        '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"T"}},"results":[{"ruleId":tru}]}]}',
        '/runs/0/results/0/ruleId',
        /unexpected “}” at byte 83/,
      ],
    ];
    for (const [text, field, message] of cases) {
      const error = await scanError('sarif', text, 3);
      assert.equal(error.field, field, text.slice(0, 80));
      assert.match(error.message, message, text.slice(0, 80));
    }
  });

  test('an unknown format name is refused naming `format` and listing the known ones', () => {
    assert.ok(isScannerFormat('trivy'));
    assert.ok(!isScannerFormat('nessus'));
    assert.deepEqual(unknownFormatIssue('nessus'), {
      field: 'format',
      message: 'must be one of sarif, trivy, grype, osv, cyclonedx, openvex, cyclonedx-xml (found “nessus”)',
    });
  });
});

describe('the finding key', () => {
  test('Trivy, Grype, OSV-Scanner and OpenVEX agree on the key of an advisory in a package', async () => {
    const keys = async (format: Exclude<ScannerFormat, 'sarif'>) =>
      (await readScan(format, fixture(FIXTURES[format]))).findings.map((f) => f.key);
    const [trivy, grype, osv, openvex] = await Promise.all([keys('trivy'), keys('grype'), keys('osv'), keys('openvex')]);
    const libcrypto = trivy[0] as string;
    assert.match(libcrypto, /^CVE-2024-0727~libcrypto3~/);
    assert.ok(grype.includes(libcrypto) && openvex.includes(libcrypto), 'CVE-2024-0727 in libcrypto3');
    const log4j = grype[0] as string;
    assert.ok(openvex.includes(log4j), 'GHSA-jfh8… (CVE-2021-44228) in log4j-core');
    const braces = osv[0] as string;
    assert.ok(openvex.includes(braces), 'GHSA-grv7… (CVE-2024-4068) in braces');
  });

  test('one CVE in two packages: every format that names a package names it in the title and the resources', async () => {
    const named: [ScannerFormat, string][] = [
      ...files(),
      ['sarif', fixture('trivy-alpine.sarif')],
      ['trivy', fixture('trivy-alpine.json')],
    ];
    for (const [format, text] of named) {
      const { findings } = await readScan(format, text);
      for (const f of findings) {
        const pkg = f.affectedResources.find((r) => r.type === 'package');
        if (!pkg) continue;
        const name = pkg.name.replace(/@[^@]*$/, '');
        assert.ok(f.title.includes(` in ${name}`), `${format}: “${f.title}” names ${name}`);
      }
    }
    const sarif = (await readScan('sarif', fixture('trivy-alpine.sarif'))).findings;
    const json = (await readScan('trivy', fixture('trivy-alpine.json'))).findings;
    const titles = (list: typeof sarif) => list.map((f) => f.title);
    assert.deepEqual(titles(sarif), titles(json), 'Trivy’s SARIF and JSON title a finding alike');
    assert.deepEqual(
      sarif.map((f) => f.affectedResources.map((r) => r.name)),
      [
        ['libcrypto1.1@1.1.1c-r0', 'library/alpine'],
        ['libssl1.1@1.1.1c-r0', 'library/alpine'],
        ['musl@1.1.22-r2', 'library/alpine'],
        ['musl-utils@1.1.22-r2', 'library/alpine'],
      ],
    );
    assert.equal(sarif[1]?.title, 'CVE-2019-1549 in libssl1.1: openssl: information disclosure in fork()');
  });

  test('package identity ignores version, qualifiers and the spellings the purl spec allows', () => {
    const id = (purl: string) => purlIdentity(purl)?.identity;
    assert.equal(id('pkg:npm/%40babel/core@7.24.0'), id('pkg:npm/@babel/core@7.25.1'));
    assert.equal(id('pkg:PyPI/Django_REST.framework@3.15'), id('pkg:pypi/django-rest-framework'));
    assert.equal(id('pkg:apk/alpine/libssl3@3.1.4-r2?arch=x86_64'), 'pkg:apk/alpine/libssl3');
    assert.notEqual(id('pkg:deb/debian/openssl@3.0.11'), id('pkg:deb/ubuntu/openssl@3.0.11'));
    assert.equal(
      packageIdentity({ name: 'org.apache.logging.log4j:log4j-core', ecosystem: 'Maven' }).identity,
      id('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1'),
    );
    assert.equal(packageIdentity({ name: 'weird', ecosystem: 'Unknown-Eco' }).identity, 'unknown-eco:weird');
  });

  test('keys stay within the API’s bound and path-safe, and long parts never collide', () => {
    const long = 'a'.repeat(500);
    const keys = [
      advisoryKey('CVE-2024-12345', { identity: `pkg:npm/${long}-1`, name: `${long}-1` }),
      advisoryKey('CVE-2024-12345', { identity: `pkg:npm/${long}-2`, name: `${long}-2` }),
      advisoryKey(`VENDOR-ADVISORY-${long}`, { identity: 'x', name: 'x' }),
      ruleKey('Tool', `rules/${long}/a`, ['src/a.js']),
      ruleKey('Tool', `rules/${long}/b`, ['src/a.js']),
      ruleKey('Tool', 'π/ünicode rule?#%', ['src/a.js']),
      advisoryKey('GHSA-xxxx-yyyy-zzzz', { identity: 'pkg:npm/@scope/name', name: '@scope/name' }),
    ];
    for (const key of keys) {
      assert.ok(key.length <= MAX_SCANNED_KEY, key);
      assert.match(key, SCANNED_KEY_PATTERN);
      assert.equal(encodeURIComponent(key), key, 'usable in a path as is');
    }
    assert.equal(new Set(keys).size, keys.length);
  });
});
