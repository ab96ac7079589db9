// `compliance vulnerabilities import` as a child process against the real service on each engine:
// a Trivy report from a path (the human summary), the findings then on the list and on the feed;
// `--json` and standard input (`-`) for a re-import that closes what the scan no longer reports;
// a replay under --idempotency-key (the first run with its progress bar); and the refusals with
// their exit codes (usage 2, permission 5, validation 6 naming the field, a reused key 7),
// including a file past the service's limit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fixture, resultAt, sarif } from '../../../test/harness/vulnerability-imports.ts';
import { explain, type CliResult } from './support/cli.ts';
import { dialects, startCliService, type CliService } from './support/service.ts';

/** The service's limit here: small, so a refused file is quick to write. */
const LIMIT = 300_000;
const SCOPE = 'registry.example.com/shop/api:1.4.2';
const ANSWER_KEYS = ['format', 'scope', 'source', 'created', 'updated', 'closed', 'reopened', 'unchanged', 'findingIds'];

function ok(res: CliResult): string {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
}
const json = (res: CliResult) => JSON.parse(ok(res));

/** The Trivy fixture without its npm lockfile result: a later scan that no longer reports that finding. */
function trivyWithoutLockfile(): string {
  const report = JSON.parse(fixture('trivy-image.json'));
  report.Results = report.Results.filter((r: { Target: string }) => r.Target !== 'app/package-lock.json');
  return JSON.stringify(report);
}

describe('compliance vulnerabilities import', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`on ${dialect}`, { concurrency: 1 }, () => {
      let s: CliService;
      let dir: string;
      let trivy: string;
      let rw: (args: string[], input?: string) => Promise<CliResult>;
      let created: string[];
      before(async () => {
        s = await startCliService(dialect, { demo: false, env: { IMPORT_MAX_BYTES: String(LIMIT) } });
        rw = (args, input) => s.cli(args, { client: s.readWrite, input });
        dir = fs.mkdtempSync(path.join(s.home, 'scans-'));
        trivy = path.join(dir, 'trivy.json');
        fs.writeFileSync(trivy, fixture('trivy-image.json'));
      });
      after(async () => {
        await s?.close();
      });

      it('imports a Trivy report: a short summary, then the findings on the list and on the feed', async () => {
        const res = await rw(['vulnerabilities', 'import', '--format', 'trivy', '--scope', SCOPE, trivy, '-o', 'table']);
        const out = ok(res);
        const m =
          /^imported trivy \([\d.]+ (?:B|KiB|MiB)\) into scope (\S+), source import\n(\d+) created, 0 updated, 0 closed, 0 reopened, 0 unchanged\n$/.exec(
            out,
          );
        assert.ok(m, `the summary:\n${out}`);
        assert.equal(m[1], SCOPE);
        const count = Number(m[2]);
        assert.ok(count >= 3, `${count} findings created`);

        const listed: Array<{ vulnerabilityId: string; source: string; cveId: string }> = json(
          await s.cli(['vulnerabilities', 'list', '--source', 'import', '-o', 'json']),
        );
        assert.equal(listed.length, count);
        assert.ok(listed.some((v) => v.cveId === 'CVE-2024-0727'));
        created = listed.map((v) => v.vulnerabilityId).sort();

        const events: Array<{ type: string; resourceId: string }> = json(
          await s.cli(['events', 'list', '--type', 'vulnerability.created', '-o', 'json']),
        );
        assert.deepEqual(events.map((e) => e.resourceId).sort(), created, 'one created event per finding');
      });

      it('--json prints exactly the answer; a re-import from stdin closes what the scan no longer reports', async () => {
        const res = await rw(['vulns', 'import', '--format', 'trivy', '--scope', SCOPE, '-', '--json'], trivyWithoutLockfile());
        const answer = json(res);
        assert.deepEqual(Object.keys(answer), ANSWER_KEYS);
        const { closed, unchanged, findingIds } = answer;
        assert.deepEqual(
          { ...answer, closed: 0, unchanged: 0, findingIds: [] },
          { format: 'trivy', scope: SCOPE, source: 'import', created: 0, updated: 0, closed: 0, reopened: 0, unchanged: 0, findingIds: [] },
        );
        assert.ok(closed >= 1, 'the lockfile’s findings are closed');
        assert.equal(closed + unchanged, created.length, 'the image’s findings are unchanged');
        assert.equal(findingIds.length, closed, 'the IDs of the findings changed');
        assert.match(
          res.stderr,
          new RegExp(`0 created, 0 updated, ${closed} closed, 0 reopened, ${unchanged} unchanged`),
          'the summary goes to stderr',
        );
        for (const id of findingIds) {
          assert.ok(created.includes(id));
          assert.equal(json(await s.cli(['vulns', 'get', id, '-o', 'json'])).status, 'closed');
        }
        const feed: Array<{ type: string; resourceId: string }> = json(
          await s.cli(['events', 'list', '--resource', findingIds[0], '--type', 'vulnerability.updated', '-o', 'json']),
        );
        assert.equal(feed.length, 1, 'the closing is on the feed');

        // Piped without -o, the answer is JSON too; the whole scan again reopens the finding.
        const back = json(await rw(['vulns', 'import', '--format', 'trivy', '--scope', SCOPE, trivy]));
        assert.deepEqual([back.reopened, back.closed, [...back.findingIds].sort()], [closed, 0, [...findingIds].sort()]);
      });

      it('imports a CycloneDX XML BOM, and the same again changes nothing', async () => {
        const file = path.join(dir, 'bom.xml');
        fs.writeFileSync(file, fixture('cyclonedx-vex.xml'));
        const args = ['vulns', 'import', '--format', 'cyclonedx-xml', '--scope', 'shop-api-xml', file, '--json'];
        const first = json(await rw(args));
        assert.deepEqual([first.format, first.scope, first.source, first.created], ['cyclonedx-xml', 'shop-api-xml', 'import', 4]);
        const again = json(await rw(args));
        assert.deepEqual([again.created, again.updated, again.closed, again.unchanged], [0, 0, 0, 4]);
      });

      it('imports and re-imports Trivy’s Kubernetes report, its list from before 0.20, and OSV-Scanner’s unnamed packages with a warning', async () => {
        const k8s = path.join(dir, 'k8s.json');
        fs.writeFileSync(k8s, fixture('trivy-k8s.json'));
        const cluster = json(await rw(['vulns', 'import', '--format', 'trivy', k8s, '--json']));
        assert.deepEqual([cluster.scope, cluster.created], ['prod-eu', 5]);
        const again = json(await rw(['vulns', 'import', '--format', 'trivy', k8s, '--json']));
        assert.deepEqual([again.created, again.updated, again.closed, again.unchanged], [0, 0, 0, 5]);

        const list = ['vulns', 'import', '--format', 'trivy', '--scope', 'legacy-ci', '-', '--json'];
        const old = json(await rw(list, fixture('trivy-list.json')));
        assert.deepEqual([old.scope, old.created], ['legacy-ci', 3]);
        assert.equal(json(await rw(list, fixture('trivy-list.json'))).unchanged, 3);

        const osv = path.join(dir, 'osv.json');
        fs.writeFileSync(osv, fixture('osv-commit.json'));
        const shown = await rw(['vulns', 'import', '--format', 'osv', '--scope', 'engine', osv, '-o', 'table']);
        assert.match(
          ok(shown),
          /^imported osv \([\d.]+ KiB\) into scope engine, source import\n3 created, 0 updated, 0 closed, 0 reopened, 0 unchanged\nwarning: a package without a name \(found by its commit, or from a git source\): its findings name the commit and the scanned source instead \(2 in the file, the first at \/results\/0\/packages\/0\/package\/name\)\n$/,
        );
        const replayed = json(await rw(['vulns', 'import', '--format', 'osv', '--scope', 'engine', osv, '--json']));
        assert.deepEqual([replayed.unchanged, replayed.warnings.length], [3, 1]);
      });

      it('a replay under --idempotency-key says so; the key reused for another file is exit 7', async () => {
        const file = path.join(dir, 'codeql.sarif');
        fs.writeFileSync(file, sarif([resultAt('src/db.js', 42)]));
        const args = [
          'vulns',
          'import',
          '--format',
          'sarif',
          '--scope',
          'github.com/acme/shop',
          file,
          '--idempotency-key',
          `cli-import-${dialect}`,
        ];
        const sent = await rw([...args, '--progress']);
        const first = json(sent);
        assert.deepEqual([first.created, first.source], [1, 'github']);
        assert.match(sent.stderr, /^import \[#+\] 100% \([\d.]+ (?:B|KiB)\/[\d.]+ (?:B|KiB)\)$/m, 'the bytes sent, with --progress');
        const again = await rw(args);
        assert.deepEqual(json(again), first);
        assert.match(again.stderr, /answered from the stored response/);
        fs.writeFileSync(file, sarif([resultAt('src/db.js', 43)]));
        const reused = await rw(args);
        assert.equal(reused.code, 7, explain(reused));
        assert.match(reused.stderr, /idempotency_key_reused|idempotency key/i);
      });

      it('refusals: usage (2), another format or a malformed file (6), read-only (5), past the limit (6), nothing written', async () => {
        const before = json(await s.cli(['vulns', 'list', '-o', 'json'])).length;
        const usage = [
          await rw(['vulns', 'import', trivy]),
          await rw(['vulns', 'import', '--format', 'trivy', path.join(dir, 'missing.json')]),
          await rw(['vulns', 'import', '--format', 'trivy', dir]),
          await rw(['vulns', 'import', '--format', 'trivy', trivy, '--json', '-o', 'table']),
          await rw(['vulns', 'import', '--format', 'trivy']),
        ];
        for (const res of usage) assert.equal(res.code, 2, explain(res));
        assert.match(usage[0].stderr, /--format is required: sarif, trivy, grype, osv, cyclonedx, openvex, cyclonedx-xml/);
        assert.match(usage[1].stderr, /cannot read .*missing\.json: ENOENT/);

        const unknown = await rw(['vulns', 'import', '--format', 'nessus', trivy]);
        assert.equal(unknown.code, 6, explain(unknown));
        assert.match(unknown.stderr, /format/);
        assert.match(unknown.stderr, /sarif/);

        const sarifFile = path.join(dir, 'other.sarif');
        fs.writeFileSync(sarifFile, sarif([resultAt('src/x.js', 1)]));
        const other = await rw(['vulns', 'import', '--format', 'trivy', sarifFile]);
        assert.equal(other.code, 6, explain(other));

        const broken = await rw(['vulns', 'import', '--format', 'trivy', '-'], '{"SchemaVersion": 2, "Results": [');
        assert.equal(broken.code, 6, explain(broken));

        const readOnly = await s.cli(['vulns', 'import', '--format', 'trivy', trivy]);
        assert.equal(readOnly.code, 5, explain(readOnly));

        const big = path.join(dir, 'big.sarif');
        fs.writeFileSync(big, sarif(Array.from({ length: 3000 }, (_, i) => resultAt(`src/gen/f${i}.js`, i + 1))));
        assert.ok(fs.statSync(big).size > LIMIT);
        const tooBig = await rw(['vulns', 'import', '--format', 'sarif', '--scope', 'big', big]);
        assert.equal(tooBig.code, 6, explain(tooBig));
        assert.match(tooBig.stderr, /file/);

        assert.equal(json(await s.cli(['vulns', 'list', '-o', 'json'])).length, before, 'nothing was written');
      });

      it('the help and the completion know the command', async () => {
        const group = ok(await s.cli(['vulns', '--help']));
        assert.match(group, /vulnerabilities import FILE +import a scanner's findings/);
        const help = ok(await s.cli(['vulns', 'import', '--help']));
        assert.match(
          help,
          /--format FORMAT +the file's format \(required\) \(sarif, trivy, grype, osv, cyclonedx, openvex, cyclonedx-xml\)/,
        );
        const bash = ok(await s.cli(['completion', 'bash']));
        assert.match(bash, /vulnerabilities\) COMPREPLY=\(\$\(compgen -W "list get create update import"/);
        assert.match(
          bash,
          /"vulnerabilities import:--format"\) COMPREPLY=\(\$\(compgen -P "\$pre" -W "sarif trivy grype osv cyclonedx openvex cyclonedx-xml"/,
        );
        assert.match(bash, /"vulnerabilities import"\) flags="--format --scope --json --idempotency-key"/);
      });
    });
  }
});
