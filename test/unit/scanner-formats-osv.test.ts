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

  test('a package without a name (found by commit, from a git source) is taken with what it has; the gap is a warning', async () => {
    const { findings, summary } = await readScan('osv', fixture('osv-commit.json'), 17);
    assert.deepEqual(summary, {
      format: 'osv',
      tool: 'OSV-Scanner',
      findings: 3,
      skipped: 0,
      warnings: [
        {
          at: '/results/0/packages/0/package/name',
          count: 2,
          message:
            'a package without a name (found by its commit, or from a git source): its findings name the commit and the scanned source instead',
        },
      ],
    });
    const [byCommit, nothing, zlib] = findings;
    assert.equal(byCommit?.title, 'OSV-2023-72 in commit b8da07095979: Heap-buffer-overflow in TrackEventParser::ParseTrackDescriptor');
    assert.deepEqual(byCommit?.affectedResources, [
      { name: 'b8da07095979310818f0efde2ef3c69ea70d62c5', type: 'commit', tags: [] },
      { name: '/work/engine/deps_flatten.txt', type: 'file', tags: [] },
    ]);
    assert.equal(byCommit?.severity, 'high');
    assert.equal(byCommit?.fixAvailable, 'yes');
    assert.equal(byCommit?.remediation, 'Update to a revision that includes the fix: 9a7f09383dd39f19e662d428321ca708a2a600a3.');
    assert.match(byCommit?.key ?? '', /^OSV-2023-72~b8da07095979~/);
    // nothing to name it by but the source it was found in
    assert.equal(nothing?.title, 'OSV-2023-99 in /work/engine/deps_flatten.txt: A package the scanner could not name');
    assert.deepEqual(nothing?.affectedResources, [{ name: '/work/engine/deps_flatten.txt', type: 'file', tags: [] }]);
    assert.equal(zlib?.title, 'OSV-2022-1 in zlib: Out-of-bounds write in inflate');
    // the same commit in another report keeps its key; another commit is another finding
    const again = await readScan('osv', fixture('osv-commit.json').replace('/work/engine/', '/ci/engine/'));
    assert.equal(again.findings[0]?.key, byCommit?.key);
    const other = await readScan('osv', fixture('osv-commit.json').replace('b8da0709597', 'c8da0709597'));
    assert.notEqual(other.findings[0]?.key, byCommit?.key);
    // a report whose unnamed packages have no findings says nothing
    const quiet = JSON.stringify({ results: [{ source: { path: 'x' }, packages: [{ package: { commit: 'abc' }, vulnerabilities: [] }] }] });
    assert.equal((await readScan('osv', quiet)).summary.warnings, undefined);
  });

  test('bad and wrong files name the place', async () => {
    const wrong = await scanError('osv', fixture('cyclonedx-vex.json'));
    assert.equal(wrong.field, '/bomFormat');
    assert.match(wrong.message, /send it with format cyclonedx/);
    const noId = JSON.stringify({
      results: [{ source: { path: 'x' }, packages: [{ package: { commit: 'abc' }, vulnerabilities: [{}] }] }],
    });
    assert.deepEqual(await scanError('osv', noId), {
      field: '/results/0/packages/0/vulnerabilities/0',
      message: 'expected the vulnerability’s ID',
      yielded: 0,
    });
    assert.equal((await scanError('osv', '{}')).field, '/results');
  });
});
