// CycloneDX 1.4+ vulnerabilities and their VEX analysis → scanned findings
// (src/formats/cyclonedx/parse.ts), as docs/scanner-formats.md documents it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, readScan, scanError } from './scanner-formats-read.ts';

const bom = fixture('cyclonedx-vex.json');

describe('CycloneDX vulnerabilities', () => {
  test('each vulnerability and affected component is a finding; refs resolve to components, nested ones too', async () => {
    const { findings, summary } = await readScan('cyclonedx', bom, 64);
    assert.deepEqual(summary, { format: 'cyclonedx', tool: 'CycloneDX', scope: 'shop-api@1.4.2', findings: 4, skipped: 0 });
    const [lodash, qs, fixedLodash, fixedQs] = findings;
    assert.equal(lodash?.title, 'CVE-2021-23337 in lodash');
    assert.equal(lodash?.severity, 'high');
    assert.equal(lodash?.cvssScore, 7.2, 'the highest CVSS v3 rating');
    assert.equal(lodash?.fixAvailable, 'yes', 'the analysis response “update”');
    assert.equal(lodash?.remediation, 'Upgrade lodash to 4.17.21.');
    assert.deepEqual(lodash?.affectedResources, [{ name: 'lodash@4.17.20', type: 'package', tags: ['npm'] }]);
    assert.deepEqual(qs?.affectedResources, [{ name: 'qs@6.5.2', type: 'package', tags: ['npm'] }]);
    assert.notEqual(fixedLodash?.key, fixedQs?.key, 'one vulnerability in two components is two findings');
  });

  test('analysis states: not_affected → ignored with the justification; resolved → closed; exploitable → open', async () => {
    const [lodash, qs, fixedLodash] = (await readScan('cyclonedx', bom)).findings;
    assert.deepEqual(lodash?.verdict, { status: 'open' });
    assert.deepEqual(qs?.verdict, {
      status: 'ignored',
      justification: 'not_affected (code_not_reachable: The parser is only used with trusted input.)',
    });
    assert.deepEqual(fixedLodash?.verdict, { status: 'closed', justification: 'resolved (Patched in our fork)' });
  });

  test('vulnerabilities written before the components are held and resolved at the end', async () => {
    const doc = JSON.parse(bom);
    const reordered = JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      vulnerabilities: doc.vulnerabilities,
      components: doc.components,
    });
    const inOrder = (await readScan('cyclonedx', bom)).findings.map((f) => f.key);
    const late = (await readScan('cyclonedx', reordered)).findings.map((f) => f.key);
    assert.deepEqual(new Set(late), new Set(inOrder));
  });

  test('bad and wrong files name the place', async () => {
    assert.equal((await scanError('cyclonedx', '{"bomFormat":"CycloneDX","specVersion":"1.3"}')).field, '/specVersion');
    assert.equal((await scanError('cyclonedx', '{"bomFormat":"SPDX","specVersion":"1.5"}')).field, '/bomFormat');
    assert.equal((await scanError('cyclonedx', '{"specVersion":"1.5"}')).field, '/bomFormat');
    const wrong = await scanError('cyclonedx', fixture('openvex.json'));
    assert.equal(wrong.field, '/@context');
    assert.match(wrong.message, /looks like an OpenVEX document/);
    const noId = '{"bomFormat":"CycloneDX","specVersion":"1.5","vulnerabilities":[{"ratings":[]}]}';
    assert.deepEqual(await scanError('cyclonedx', noId), {
      field: '/vulnerabilities/0/id',
      message: 'expected the vulnerability’s ID',
      yielded: 0,
    });
  });
});
