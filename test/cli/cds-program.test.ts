// `cds program` run as a child process on each engine (docs/program-documents.md, "Commands"):
// plan exits 2 when something would change and 0 when not; apply writes once and records one
// audit entry (none for an apply that changes nothing); a folder of files is one document; a
// refused document prints FILE:LINE:COLUMN per problem and changes nothing; export gives YAML or
// JSON that plans with no change; an OSCAL catalog plans and applies as a framework, and a
// framework exports as a catalog.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { runCli, type CliResult } from '../harness/process.ts';
import { listAuditEntries } from '../../src/storage/db/repositories/console/audit-log.ts';

const show = (res: CliResult) => `exit ${res.code}\nstdout:\n${res.stdout}\nstderr:\n${res.stderr}`;

const FRAMEWORKS = `version: 1
frameworks:
  - key: soc2
    name: SOC 2
    requirements:
      - key: cc1-1
        code: CC1.1
        name: Integrity and ethical values
`;
const MORE = `version: 1
frameworks:
  - key: iso
    name: ISO 27001
    requirements:
      - key: a-5-1
        code: A.5.1
        name: Policies for information security
`;

const CATALOG = {
  catalog: {
    uuid: '0c8a4e7b-1d2f-4a6b-9c3e-5f7a9b1d3e5f',
    metadata: { title: 'Test Catalog', 'last-modified': '2026-01-01T00:00:00Z', version: '1', 'oscal-version': '1.1.2' },
    controls: [
      { id: 'ac-1', title: 'Policy and Procedures', props: [{ name: 'label', value: 'AC-1' }] },
      { id: 'ac-2', title: 'Account Management', props: [{ name: 'label', value: 'AC-2' }] },
    ],
  },
};

describe('cds program on each engine', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`cds program (${dialect})`, { concurrency: 1 }, () => {
      let database: TestDatabase;
      let env: Record<string, string>;
      let dir: string;
      let org: string;
      const cds = (...args: string[]) => runCli(args, env);

      before(async () => {
        database = await createTestDatabase(dialect);
        env = { ...database.env, REGION: 'us' };
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-program-'));
        fs.mkdirSync(path.join(dir, 'program'));
        fs.writeFileSync(path.join(dir, 'program', '10-soc2.yaml'), FRAMEWORKS);
        fs.writeFileSync(path.join(dir, 'program', '20-iso.yaml'), MORE);
        fs.writeFileSync(path.join(dir, 'bad.yaml'), 'version: 1\nframeworks:\n  - key: x\n    nme: X\n    requirements: []\n');
        fs.writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify(CATALOG, null, 2));
        const created = await cds('org', 'create', '--name', 'Program Org', '--json');
        assert.equal(created.code, 0, show(created));
        org = JSON.parse(created.stdout).id;
      });
      after(async () => {
        await database?.drop();
        fs.rmSync(dir, { recursive: true, force: true });
      });

      it('plan a folder: exit 2 and the changes; apply; plan again: exit 0; one audit entry', async () => {
        const folder = path.join(dir, 'program');
        const planned = await cds('program', 'plan', '--org', org, folder);
        assert.equal(planned.code, 2, show(planned));
        assert.match(planned.stdout, /Plan: 2 to create, 0 to update, 0 to delete/);
        assert.match(planned.stdout, /\+ frameworks soc2/);
        assert.match(planned.stdout, /\+ frameworks iso/);
        const applied = await cds('program', 'apply', '--org', org, folder);
        assert.equal(applied.code, 0, show(applied));
        assert.match(applied.stdout, /Applied: 2 created/);
        const again = await cds('program', 'plan', '--org', org, folder);
        assert.equal(again.code, 0, show(again));
        assert.match(again.stdout, /No changes/);
        const reapplied = await cds('program', 'apply', '--org', org, folder);
        assert.equal(reapplied.code, 0, show(reapplied));
        const audit = await listAuditEntries(database.db.kysely, org, { limit: 10 });
        const applies = audit.filter((e) => e.action === 'program.apply');
        assert.equal(applies.length, 1, 'the apply that changed nothing is not in the audit log');
        assert.equal(applies[0].actorType, 'cli');
        assert.match(applies[0].targetLabel ?? '', /2 files: 2 created/);
      });

      it('a refused document: FILE:LINE:COLUMN for each problem, exit 1, nothing written', async () => {
        const file = path.join(dir, 'bad.yaml');
        const res = await cds('program', 'apply', '--org', org, file);
        assert.equal(res.code, 1, show(res));
        assert.ok(res.stderr.includes(`${file}:4:5: /frameworks/0/nme`), res.stderr);
        assert.ok(res.stderr.includes(`${file}:3:5: /frameworks/0/name is required`), res.stderr);
        const broken = path.join(dir, 'broken.yaml');
        fs.writeFileSync(broken, 'version: 1\nframeworks: [\n');
        const syntax = await cds('program', 'plan', '--org', org, broken);
        assert.equal(syntax.code, 1, show(syntax));
        assert.match(
          syntax.stderr,
          new RegExp(`${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:1: \\(the document\\) is not valid YAML`),
        );
      });

      it('export as YAML plans with no change; as JSON it is the same document', async () => {
        const yaml = await cds('program', 'export', '--org', org);
        assert.equal(yaml.code, 0, show(yaml));
        assert.match(yaml.stdout, /^# yaml-language-server: \$schema=http:\/\/.*\/v1\/program\/schema\n/);
        const file = path.join(dir, 'exported.yaml');
        fs.writeFileSync(file, yaml.stdout);
        const replan = await cds('program', 'plan', '--org', org, file);
        assert.equal(replan.code, 0, show(replan));
        const json = await cds('program', 'export', '--org', org, '--format', 'json');
        assert.equal(json.code, 0, show(json));
        const doc = JSON.parse(json.stdout);
        assert.deepEqual(doc.frameworks.map((f: { key: string }) => f.key).sort(), ['iso', 'soc2']);
      });

      it('an OSCAL catalog plans and applies as a framework; a framework exports as a catalog', async () => {
        const catalog = path.join(dir, 'catalog.json');
        const planned = await cds('program', 'plan', '--org', org, '--oscal-catalog', catalog, '--key', 'test-catalog');
        assert.equal(planned.code, 2, show(planned));
        assert.match(planned.stdout, /\+ frameworks test-catalog/);
        const pruned = await cds('program', 'apply', '--org', org, '--oscal-catalog', catalog, '--prune');
        assert.equal(pruned.code, 2, show(pruned));
        assert.match(pruned.stderr, /--prune cannot go with --oscal-catalog/);
        const applied = await cds('program', 'apply', '--org', org, '--oscal-catalog', catalog, '--key', 'test-catalog');
        assert.equal(applied.code, 0, show(applied));
        const exported = await cds('program', 'export', '--org', org, '--oscal-catalog', 'test-catalog');
        assert.equal(exported.code, 0, show(exported));
        const back = JSON.parse(exported.stdout).catalog;
        assert.equal(back.metadata.title, 'Test Catalog');
        assert.deepEqual(
          back.controls.map((c: { id: string; props: Array<{ value: string }> }) => [c.id, c.props[0].value]),
          [
            ['ac-1', 'AC-1'],
            ['ac-2', 'AC-2'],
          ],
        );
        const missing = await cds('program', 'export', '--org', org, '--oscal-catalog', 'nope');
        assert.equal(missing.code, 4, show(missing));
      });

      it('cds reads YAML past PROGRAM_MAX_YAML_BYTES (the limit of the server), up to PROGRAM_MAX_BYTES', async () => {
        const file = path.join(dir, 'large.yaml');
        fs.writeFileSync(file, `${FRAMEWORKS}${'# padding\n'.repeat(300)}`);
        const res = await runCli(['program', 'plan', '--org', org, file], { ...env, PROGRAM_MAX_YAML_BYTES: '1024' });
        assert.equal(res.code, 0, show(res));
      });

      it('a catalog with a problem names its place in the file', async () => {
        const bad = path.join(dir, 'bad-catalog.json');
        fs.writeFileSync(bad, JSON.stringify({ catalog: { ...CATALOG.catalog, uuid: 'not-a-uuid' } }, null, 2));
        const res = await cds('program', 'plan', '--org', org, '--oscal-catalog', bad);
        assert.equal(res.code, 1, show(res));
        assert.ok(res.stderr.includes(`${bad}:3:5: /catalog/uuid`), res.stderr);
      });
    });
  }
});
