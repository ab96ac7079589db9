// OSV-Scanner JSON → scanned findings (src/formats/osv/parse.ts), as docs/scanner-formats.md
// documents it, on a report written here in OSV-Scanner's JSON shape.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, readScan, scanError } from './scanner-formats-read.ts';

const report = fixture('osv-lockfile.json');

describe('OSV-Scanner JSON', () => {
  test('one finding per alias group and package: the CVE names it, the group’s max severity scores it', async () => {
    const { findings, summary } = await readScan('osv', report, 29);
    assert.deepEqual(summary, { format: 'osv', tool: 'OSV-Scanner', findings: 2, skipped: 0 });
    const [braces, django] = findings;
    assert.equal(braces?.title, 'CVE-2024-4068 in braces: Uncontrolled resource consumption in braces');
    assert.equal(braces?.cveId, 'CVE-2024-4068');
    assert.equal(braces?.severity, 'high');
    assert.equal(braces?.cvssScore, 7.5);
    assert.equal(braces?.fixAvailable, 'yes');
    assert.equal(braces?.remediation, 'Upgrade braces from 3.0.2 to 3.0.3.');
    assert.deepEqual(braces?.affectedResources, [
      { name: 'braces@3.0.2', type: 'package', tags: ['npm'] },
      { name: '/work/shop/web/package-lock.json', type: 'file', tags: [] },
    ]);
    assert.equal(braces?.at, '/results/0/packages/0/groups/0');
    // without groups, each entry is its own finding; no CVE, no score, no severity word → medium
    assert.equal(django?.title, 'PYSEC-2023-100 in Django: Potential denial of service');
    assert.equal(django?.cveId, '');
    assert.equal(django?.severity, 'medium');
    assert.equal(django?.fixAvailable, 'no');
  });

  test('bad and wrong files name the place', async () => {
    const wrong = await scanError('osv', fixture('cyclonedx-vex.json'));
    assert.equal(wrong.field, '/bomFormat');
    assert.match(wrong.message, /send it with format cyclonedx/);
    const noName = JSON.stringify({ results: [{ source: { path: 'x' }, packages: [{ package: { version: '1' } }] }] });
    assert.deepEqual(await scanError('osv', noName), {
      field: '/results/0/packages/0/package/name',
      message: 'expected the package’s name',
      yielded: 0,
    });
    assert.equal((await scanError('osv', '{}')).field, '/results');
  });
});
