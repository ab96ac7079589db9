// Per-kind data versions over HTTP, on every database engine (src/shared/data-versions.ts): a
// vulnerability write cannot change the controls or frameworks answers, so they are still served
// from the cache (no statement reads the controls' data); an evidence upload does change them, so
// they show the new status, reading again only the evidence states (the controls and their links
// are reused). Every answer equals the one a server without a result cache computes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { createTestDatabase, dialects, type TestDatabase } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { controlFixtures, newTestId } from '../harness/fixtures-controls.ts';
import { NoResultCache } from '../../src/domain/result-cache.ts';

/** Records the tables each statement the app sends names. */
class TableRecorder implements KyselyPlugin {
  tables: string[][] = [];
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const names = new Set<string>();
    const walk = (node: unknown) => {
      if (!node || typeof node !== 'object') return;
      const n = node as { kind?: string; table?: { identifier?: { name?: string } } };
      if (n.kind === 'TableNode' && n.table?.identifier?.name) names.add(n.table.identifier.name);
      for (const value of Object.values(node)) walk(value);
    };
    walk(args.node);
    this.tables.push([...names]);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
  /** the tables read since the last call */
  take(): Set<string> {
    const all = new Set(this.tables.flat());
    this.tables = [];
    return all;
  }
}

/** The tables the controls snapshot reads besides the artifacts' states. */
const CONTROL_TABLES = ['controls', 'control_artifacts', 'control_requirements', 'frameworks', 'requirements', 'subject_people'];
const ARTIFACT_TABLES = ['policies', 'evidence', 'tests'];

for (const dialect of dialects) {
  describe(`data versions per kind (${dialect})`, () => {
    let base: TestDatabase;
    const recorder = new TableRecorder();
    let server: TestServer;
    let fresh: TestServer;
    let blobDir: string;
    let token: string;
    let frameworkId: string;
    let evidenceId: string;
    let evidenceControl: string;

    before(async () => {
      base = await createTestDatabase(dialect);
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-versions-blobs-'));
      const env = { RATE_LIMIT_MAX: '100000', BLOB_DIR: blobDir };
      const recorded: TestDatabase = { ...base, db: { ...base.db, kysely: base.db.kysely.withPlugin(recorder) }, drop: async () => {} };
      server = await startServer({ database: recorded, env });
      fresh = await startServer({ database: base, env, cache: new NoResultCache() });
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      token = await getToken(server.url, client);
      const people = [{ id: randomUUID(), name: 'Ada', email: 'ada@example.com' }];
      frameworkId = randomUUID();
      const requirementId = randomUUID();
      const controls = ['Access reviews', 'Backups'].map((name, i) => ({
        id: randomUUID(),
        code: `CTL-${i}`,
        name,
        requirementIds: [requirementId],
        assignees: [people[0].id],
      }));
      evidenceId = randomUUID();
      evidenceControl = controls[0].id;
      const policyId = randomUUID();
      const testId = newTestId();
      await controlFixtures(base.db, client.organizationId).organization({
        people,
        entities: [],
        frameworks: [{ id: frameworkId, name: 'Framework', entityIds: [] }],
        requirements: [{ id: requirementId, frameworkId, code: 'R-1' }],
        controls,
        policies: [{ id: policyId, name: 'Policy', status: 'published' }],
        evidence: [{ id: evidenceId, name: 'Access review export', status: 'not_uploaded' }],
        tests: [{ id: testId, name: 'Test', result: 'passing' }],
        mappings: [
          { type: 'evidence', id: evidenceId, controlIds: [controls[0].id], requirementIds: [requirementId] },
          { type: 'policy', id: policyId, controlIds: [controls[0].id, controls[1].id], requirementIds: [requirementId] },
          { type: 'test', id: testId, controlIds: [controls[1].id], requirementIds: [requirementId] },
        ],
      });
    });
    after(async () => {
      await fresh?.close();
      await server?.close();
      await base?.drop();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });

    const READS = ['/v1/controls', '/v1/frameworks', () => `/v1/controls?frameworkIds=${frameworkId}`, '/v1/evidence'] as const;
    const urls = () => READS.map((u) => (typeof u === 'function' ? u() : u));

    /** Every answer, from the cached server; each must equal the uncached server's. */
    async function answers(): Promise<Map<string, unknown>> {
      const out = new Map<string, unknown>();
      for (const url of urls()) {
        const res = await api(server.url, url, token);
        assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
        const expected = await api(fresh.url, url, token);
        assert.deepEqual(res.body.data, expected.body.data, `${url}: the cached answer is what a fresh computation gives`);
        out.set(url, res.body.data);
      }
      return out;
    }
    const tablesOf = async (url: string) => {
      recorder.take();
      const res = await api(server.url, url, token);
      assert.equal(res.status, 200);
      return recorder.take();
    };

    test('a vulnerability create or patch leaves the controls and frameworks answers cached', async () => {
      const before = await answers();
      const created = await api(server.url, '/v1/vulnerabilities', token, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ vulnerabilityId: 'VUL-0001', title: 'Outdated TLS', severity: 'high', status: 'open' }),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      for (const url of ['/v1/controls', '/v1/frameworks', `/v1/controls?frameworkIds=${frameworkId}`]) {
        const read = await tablesOf(url);
        for (const table of [...CONTROL_TABLES, ...ARTIFACT_TABLES]) {
          assert.ok(!read.has(table), `${url} after a vulnerability write is served from the cache (it read ${[...read].join(', ')})`);
        }
      }
      const patched = await api(server.url, `/v1/vulnerabilities/${created.body.data.vulnerabilityId}`, token, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ reportLink: 'https://example.com/report' }),
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const read = await tablesOf('/v1/frameworks');
      assert.ok(!read.has('frameworks'), `GET /v1/frameworks after a patch is served from the cache (it read ${[...read].join(', ')})`);
      assert.deepEqual(await answers(), before, 'and no answer changed');
      const list = await api(server.url, '/v1/vulnerabilities', token);
      assert.equal(list.body.data.length, 1, 'the vulnerability list itself shows the new finding');
    });

    test('an evidence upload changes the controls and frameworks answers; only the evidence states are read again', async () => {
      const before = await answers();
      const control = (data: unknown) =>
        (data as Array<{ controlId: string; status: string }>).find((c) => c.controlId === evidenceControl)!;
      assert.equal(control(before.get('/v1/controls')).status, 'non_compliant');
      const form = new FormData();
      form.append('evidenceDate', String(Date.now() - 60_000));
      form.append('files', new Blob(['export\n']), 'export.txt');
      const uploaded = await api(server.url, `/v1/evidence/${evidenceId}/attachments`, token, {
        method: 'POST',
        headers: { 'idempotency-key': randomUUID() },
        body: form,
      });
      assert.equal(uploaded.status, 201, JSON.stringify(uploaded.body));

      const read = await tablesOf('/v1/controls');
      assert.ok(read.has('evidence'), 'the evidence states are read again');
      for (const table of [...CONTROL_TABLES, 'policies', 'tests']) {
        assert.ok(!read.has(table), `the rest of the snapshot is reused (it read ${[...read].join(', ')})`);
      }
      const now = await answers();
      assert.equal(control(now.get('/v1/controls')).status, 'compliant', 'the control shows its evidence uploaded');
      const framework = (now.get('/v1/frameworks') as Array<{ complianceProgress: { evidence: { uploaded: number } } }>)[0];
      assert.equal(framework.complianceProgress.evidence.uploaded, 1, 'the framework counts the uploaded evidence');
      assert.notDeepEqual(now.get('/v1/frameworks'), before.get('/v1/frameworks'));
    });
  });
}
