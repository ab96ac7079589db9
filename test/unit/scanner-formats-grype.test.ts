// Grype JSON → scanned findings (src/formats/grype/parse.ts), as docs/scanner-formats.md documents
// it, on a report written here in Grype's JSON shape.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, readScan, scanError } from './scanner-formats-read.ts';

const report = fixture('grype-image.json');

describe('Grype JSON', () => {
  test('a match maps as documented; the CVE among related vulnerabilities names the finding', async () => {
    const { findings, summary } = await readScan('grype', report, 101);
    assert.deepEqual(summary, { format: 'grype', tool: 'Grype', scope: 'registry.example.com/shop/api:1.4.2', findings: 4, skipped: 0 });
    const [log4j] = findings;
    assert.equal(log4j?.title, 'GHSA-jfh8-c2jp-5v3q in log4j-core');
    assert.equal(log4j?.cveId, 'CVE-2021-44228');
    assert.match(log4j?.key ?? '', /^CVE-2021-44228~log4j-core~/);
    assert.equal(log4j?.severity, 'critical');
    assert.equal(log4j?.cvssScore, 10, 'the v3 score, not the related v2 one');
    assert.equal(log4j?.fixAvailable, 'yes');
    assert.equal(log4j?.remediation, 'Upgrade log4j-core from 2.14.1 to 2.15.0.');
    assert.equal(log4j?.description, 'Remote code injection in Log4j');
    assert.deepEqual(log4j?.affectedResources, [
      { name: 'log4j-core@2.14.1', type: 'package', tags: ['java-archive'] },
      { name: '/app/lib/log4j-core-2.14.1.jar', type: 'file', tags: [] },
    ]);
  });

  test('Negligible is low; wont-fix says so and has no fix', async () => {
    const [, crypto] = (await readScan('grype', report)).findings;
    assert.equal(crypto?.severity, 'low');
    assert.equal(crypto?.fixAvailable, 'no');
    assert.equal(crypto?.remediation, 'The maintainers will not fix it (Grype fix state “wont-fix”).');
  });

  test('ignored matches keep the ignore rule’s reason; a VEX “fixed” closes', async () => {
    const [, , ignored, fixed] = (await readScan('grype', report)).findings;
    assert.deepEqual(ignored?.verdict, { status: 'ignored', justification: 'Only reachable through the CLI, not shipped' });
    assert.deepEqual(fixed?.verdict, { status: 'closed', justification: 'A VEX document applied by Grype states it is fixed.' });
  });

  test('bad and wrong files name the place', async () => {
    const trivy = fixture('trivy-image.json');
    const wrong = await scanError('grype', trivy);
    assert.equal(wrong.field, '/SchemaVersion');
    assert.match(wrong.message, /looks like a Trivy JSON report: send it with format trivy/);
    const noArtifact = JSON.stringify({ matches: [{ vulnerability: { id: 'CVE-2024-1' } }] });
    assert.deepEqual(await scanError('grype', noArtifact), {
      field: '/matches/0/artifact',
      message: 'expected the matched package (an object)',
      yielded: 0,
    });
    assert.equal((await scanError('grype', '{"source":{}}')).field, '/matches');
    assert.equal((await scanError('grype', '{"matches":[],"descriptor":{"name":"syft"}}')).field, '/descriptor/name');
  });
});
