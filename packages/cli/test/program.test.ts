// compliance program plan | apply | export on each engine (docs/program-documents.md): plan exits
// 2 when the document would change something and 0 when not, apply writes once, export gives the
// document back as YAML or JSON; a refused document prints FILE:LINE:COLUMN per problem (exit 6);
// an OSCAL catalog plans as one framework.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { explain, type CliResult } from './support/cli.ts';
import { dialects, startCliService, type CliService } from './support/service.ts';

const DOCUMENT = `version: 1
frameworks:
  - key: cli-framework
    name: CLI Framework
    requirements:
      - key: r1
        code: R-1
        name: First requirement
`;

const CATALOG = {
  catalog: {
    uuid: '5b1f7c1e-2a3d-4e5f-8a9b-0c1d2e3f4a5b',
    metadata: { title: 'CLI Catalog', 'last-modified': '2026-01-01T00:00:00Z', version: '1', 'oscal-version': '1.1.2' },
    controls: [{ id: 'c-1', title: 'One', props: [{ name: 'label', value: 'C-1' }] }],
  },
};

describe('compliance program', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`on ${dialect}`, { concurrency: 1 }, () => {
      let s: CliService;
      let dir: string;
      let rw: (args: string[], input?: string) => Promise<CliResult>;
      before(async () => {
        s = await startCliService(dialect, { demo: false });
        rw = (args, input) => s.cli(args, { client: s.readWrite, input });
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-program-'));
        fs.writeFileSync(path.join(dir, 'program.yaml'), DOCUMENT);
        fs.writeFileSync(path.join(dir, 'bad.yaml'), 'version: 1\nframeworks:\n  - key: x\n    nme: X\n    requirements: []\n');
        fs.writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify(CATALOG));
      });
      after(async () => {
        await s?.close();
        fs.rmSync(dir, { recursive: true, force: true });
      });

      it('plan exits 2 with the changes, apply writes, plan then exits 0', async () => {
        const file = path.join(dir, 'program.yaml');
        const planned = await rw(['program', 'plan', file]);
        assert.equal(planned.code, 2, explain(planned));
        assert.match(planned.stdout, /Plan: 1 to create/);
        assert.match(planned.stdout, /\+ frameworks cli-framework/);
        const applied = await rw(['program', 'apply', file]);
        assert.equal(applied.code, 0, explain(applied));
        assert.match(applied.stdout, /Applied: 1 created/);
        const again = await rw(['program', 'plan', file]);
        assert.equal(again.code, 0, explain(again));
        assert.match(again.stdout, /No changes/);
      });

      it('export as YAML and as JSON; the YAML plans with no change', async () => {
        const yaml = await rw(['program', 'export']);
        assert.equal(yaml.code, 0, explain(yaml));
        assert.match(yaml.stdout, /^# yaml-language-server: \$schema=/);
        const exported = path.join(dir, 'exported.yaml');
        fs.writeFileSync(exported, yaml.stdout);
        const replan = await rw(['program', 'plan', exported]);
        assert.equal(replan.code, 0, explain(replan));
        const json = await rw(['program', 'export', '--format', 'json']);
        assert.equal(json.code, 0, explain(json));
        assert.ok(JSON.parse(json.stdout).frameworks.some((f: { key: string }) => f.key === 'cli-framework'));
      });

      it('a refused document prints FILE:LINE:COLUMN for each problem and exits 6', async () => {
        const file = path.join(dir, 'bad.yaml');
        const res = await rw(['program', 'plan', file]);
        assert.equal(res.code, 6, explain(res));
        assert.ok(res.stderr.includes(`${file}:4:5: /frameworks/0/nme`), res.stderr);
      });

      it('an OSCAL catalog plans as one framework', async () => {
        const res = await rw(['program', 'plan', '--oscal-catalog', path.join(dir, 'catalog.json'), '--framework-key', 'cli-cat']);
        assert.equal(res.code, 2, explain(res));
        assert.match(res.stdout, /\+ frameworks cli-cat/);
      });
    });
  }
});
