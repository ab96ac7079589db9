// OpenVEX statements → scanned findings with evidence `statement` (src/formats/openvex/parse.ts),
// as docs/scanner-formats.md documents it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, readScan, scanError } from './scanner-formats-read.ts';

const vex = fixture('openvex.json');

describe('OpenVEX', () => {
  test('a statement is a verdict per subcomponent: not_affected → ignored, fixed → closed, affected → open', async () => {
    const { findings, summary } = await readScan('openvex', vex, 41);
    assert.deepEqual(summary, { format: 'openvex', tool: 'OpenVEX', findings: 4, skipped: 0 });
    assert.deepEqual(
      findings.map((f) => [f.title, f.verdict.status, f.evidence]),
      [
        ['CVE-2024-0727 in libcrypto3', 'ignored', 'statement'],
        ['CVE-2024-0727 in libssl3', 'ignored', 'statement'],
        ['CVE-2021-44228 in log4j-core', 'closed', 'statement'],
        ['CVE-2024-4068 in braces', 'open', 'statement'],
      ],
    );
    const [crypto, , log4j, braces] = findings;
    assert.deepEqual(crypto?.verdict, {
      status: 'ignored',
      justification: 'vulnerable_code_not_in_execute_path: The service never parses PKCS12 files.',
    });
    assert.deepEqual(crypto?.affectedResources, [
      { name: 'libcrypto3@3.1.4-r2', type: 'package', tags: ['apk'] },
      { name: 'pkg:oci/api@sha256%3Aabcd?repository_url=registry.example.com/shop', type: 'product', tags: [] },
    ]);
    assert.equal(crypto?.at, '/statements/0/products/0/subcomponents/0');
    assert.equal(log4j?.at, '/statements/1/products/0');
    assert.deepEqual(log4j?.verdict, { status: 'closed', justification: 'Upgraded in release 1.4.3' });
    assert.equal(braces?.remediation, 'Upgrade braces to 3.0.3 in the next release.');
    assert.equal(braces?.cveId, 'CVE-2024-4068', 'the CVE among the aliases');
  });

  test('v0.0.1 documents (strings for vulnerability and products) are read too', async () => {
    const old = JSON.stringify({
      '@context': 'https://openvex.dev/ns',
      statements: [
        {
          vulnerability: 'CVE-2023-1234',
          products: ['pkg:npm/left-pad@1.3.0'],
          status: 'not_affected',
          justification: 'component_not_present',
        },
      ],
    });
    const [f] = (await readScan('openvex', old)).findings;
    assert.equal(f?.title, 'CVE-2023-1234 in left-pad');
    assert.deepEqual(f?.verdict, { status: 'ignored', justification: 'component_not_present' });
  });

  test('bad and wrong files name the place', async () => {
    const badStatus = vex.replace('"status": "fixed"', '"status": "done"');
    const error = await scanError('openvex', badStatus);
    assert.deepEqual(error, {
      field: '/statements/1/status',
      message: 'expected not_affected, affected, fixed or under_investigation',
      yielded: 2,
    });
    assert.equal((await scanError('openvex', '{"@context":"https://example.com/ns","statements":[]}')).field, '/@context');
    assert.equal((await scanError('openvex', '{"statements":[]}')).field, '/@context');
    assert.equal((await scanError('openvex', fixture('grype-image.json'))).field, '/matches');
  });
});
