// The program document's HTTP door (issue 25; docs/program-documents.md, "Over HTTP"), on every
// engine: PUT /v1/program plans (`mode=plan`, nothing written) and applies YAML or JSON bodies under
// the spec's Idempotency-Key rules; a problem answers 400 with its JSON pointer, line and column;
// the write scope of every kind the document holds is needed (403 names each missing one); an
// OSCAL catalog is an alternative body; GET /v1/program exports JSON or YAML that applies back with
// no change; GET /v1/program/schema answers the JSON Schema without a credential.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { dialects } from '../harness/engines.ts';
import { addCredential, api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { eventCounter } from '../harness/events.ts';

const DOCUMENT = `# a program in YAML
version: 1
frameworks:
  - key: soc2
    name: SOC 2
    requirements:
      - key: cc1-1
        code: CC1.1
        name: Integrity and ethical values
      - key: cc1-2
        code: CC1.2
        name: Board independence
`;

const CATALOG = {
  catalog: {
    uuid: '2f6d0a54-8e4b-4c3e-9d2a-1b5c7e9f0a11',
    metadata: { title: 'Example Catalog', 'last-modified': '2026-01-01T00:00:00Z', version: '1', 'oscal-version': '1.1.2' },
    groups: [
      {
        id: 'ac',
        title: 'Access Control',
        controls: [
          { id: 'ac-1', title: 'Policy and Procedures', props: [{ name: 'label', value: 'AC-1' }] },
          {
            id: 'ac-2',
            title: 'Account Management',
            props: [{ name: 'label', value: 'AC-2' }],
            controls: [{ id: 'ac-2.1', title: 'Automated Management' }],
          },
          { id: 'ac-3', title: 'Withdrawn', props: [{ name: 'status', value: 'withdrawn' }] },
        ],
      },
    ],
  },
};

for (const dialect of dialects) {
  describe(`PUT and GET /v1/program (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    let token: string;
    let organizationId: string;
    let n = 0;
    const key = () => `program-door-${++n}`;
    const put = (query: string, body: string, headers: Record<string, string> = {}, as = token) =>
      api(server.url, `/v1/program${query}`, as, { method: 'PUT', body, headers: { 'content-type': 'application/yaml', ...headers } });

    before(async () => {
      server = await startServer({ dialect, env: { PROGRAM_MAX_BYTES: String(64 * 1024), PROGRAM_MAX_YAML_BYTES: String(16 * 1024) } });
      const client = await createOrgWithCredential(server.system, { name: 'Door Org', accessLevel: 'read_write' });
      organizationId = client.organizationId;
      token = await getToken(server.url, client);
    });
    after(() => server?.close());

    test('GET /v1/program/schema needs no credential and is the JSON Schema kept in the repository', async () => {
      const res = await api(server.url, '/v1/program/schema');
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /application\/schema\+json/);
      const kept = JSON.parse(readFileSync(new URL('../../schemas/program.schema.json', import.meta.url), 'utf8'));
      assert.equal(res.body.$id, `${server.url}/v1/program/schema`);
      assert.deepEqual({ ...res.body, $id: undefined }, { ...kept, $id: undefined });
    });

    test('mode=plan answers the plan and writes nothing; apply needs an Idempotency-Key', async () => {
      const events = await eventCounter(server.database, organizationId);
      const plan = await put('?mode=plan', DOCUMENT);
      assert.equal(plan.status, 200, JSON.stringify(plan.body));
      assert.equal(plan.body.data.changed, true);
      assert.equal(plan.body.data.counts.frameworks.created, 1);
      assert.equal((await api(server.url, '/v1/frameworks', token)).body.data.length, 0);
      assert.equal(await eventCounter(server.database, organizationId), events);
      const keyless = await put('', DOCUMENT);
      assert.equal(keyless.status, 400);
      assert.equal(keyless.body.error.code, 'idempotency_key_required');
    });

    test('apply writes; the same key replays; the same document again changes nothing', async () => {
      const k = key();
      const applied = await put('', DOCUMENT, { 'idempotency-key': k });
      assert.equal(applied.status, 200, JSON.stringify(applied.body));
      assert.equal(applied.body.data.changed, true);
      const frameworks = (await api(server.url, '/v1/frameworks', token)).body.data;
      assert.deepEqual(
        frameworks.map((f: { frameworkName: string }) => f.frameworkName),
        ['SOC 2'],
      );
      const replay = await put('', DOCUMENT, { 'idempotency-key': k });
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body.data, applied.body.data);
      const reused = await put('', `${DOCUMENT}# changed\n`, { 'idempotency-key': k });
      assert.equal(reused.status, 409);
      assert.equal(reused.body.error.code, 'idempotency_key_reused');
      const events = await eventCounter(server.database, organizationId);
      const again = await put('', DOCUMENT, { 'idempotency-key': key() });
      assert.equal(again.status, 200);
      assert.equal(again.body.data.changed, false);
      assert.equal(await eventCounter(server.database, organizationId), events);
    });

    test('a JSON body applies as YAML does', async () => {
      const res = await api(server.url, '/v1/program?mode=plan', token, {
        method: 'PUT',
        body: JSON.stringify(parseYaml(DOCUMENT)),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.changed, false);
    });

    test('problems answer 400 with their JSON pointer, line and column, and nothing is written', async () => {
      const bad = 'version: 1\nframeworks:\n  - key: iso\n    nme: ISO\n    requirements: []\n';
      const res = await put('', bad, { 'idempotency-key': key() });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'validation_failed');
      const unknown = res.body.error.details.find((d: { field: string }) => d.field === '/frameworks/0/nme');
      assert.ok(unknown, JSON.stringify(res.body.error.details));
      assert.equal(unknown.line, 4);
      assert.equal(unknown.column, 5);
      const syntax = await put('?mode=plan', 'version: 1\nframeworks: [\n');
      assert.equal(syntax.status, 400);
      assert.equal(syntax.body.error.details[0].field, '');
      assert.equal(syntax.body.error.details[0].line, 3);
      assert.equal((await api(server.url, '/v1/frameworks', token)).body.data.length, 1);
    });

    test('hostile bodies are refused quickly: oversize, an alias bomb, deep nesting', async () => {
      const big = await put('?mode=plan', `version: 1\n#${'x'.repeat(70 * 1024)}\n`);
      assert.equal(big.status, 400);
      assert.match(big.body.error.details[0].message, /PROGRAM_MAX_BYTES/);
      const levels = ['a: &a [x,x,x,x,x,x,x,x,x]'];
      for (let i = 1; i < 9; i++)
        levels.push(
          `${'abcdefghij'[i]}: &${'abcdefghij'[i]} [${Array(9)
            .fill(`*${'abcdefghij'[i - 1]}`)
            .join(',')}]`,
        );
      const bomb = await put('?mode=plan', levels.join('\n'));
      assert.equal(bomb.status, 400);
      assert.match(bomb.body.error.details[0].message, /aliases/);
      const deep = await put('?mode=plan', `${'['.repeat(10_000)}`);
      assert.equal(deep.status, 400);
      assert.match(deep.body.error.details[0].message, /nested/);
    });

    test('YAML has its own, lower limit; the same document as JSON is read', async () => {
      const requirements = Array.from({ length: 400 }, (_, i) => ({ key: `q${i}`, code: `Q-${i}`, name: `Requirement number ${i}` }));
      const doc = { version: 1, frameworks: [{ key: 'big-yaml', name: 'Big YAML', requirements }] };
      const asYaml = `version: 1\nframeworks:\n  - key: big-yaml\n    name: Big YAML\n    requirements:\n${requirements
        .map((r) => `      - key: ${r.key}\n        code: ${r.code}\n        name: ${r.name}\n`)
        .join('')}`;
      assert.ok(asYaml.length > 16 * 1024);
      const refused = await put('?mode=plan', asYaml);
      assert.equal(refused.status, 400);
      assert.match(refused.body.error.details[0].message, /PROGRAM_MAX_YAML_BYTES/);
      const json = await put('?mode=plan', JSON.stringify(doc), { 'content-type': 'application/json' });
      assert.equal(json.status, 200, JSON.stringify(json.body));
    });

    test('the write scope of every kind the document holds; 403 names each missing one', async () => {
      const reader = await getToken(server.url, await addCredential(server.system, organizationId, 'read_only'));
      const res = await put('?mode=plan', `${DOCUMENT}people: []\n`, {}, reader);
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'forbidden');
      assert.match(res.body.error.message, /framework:write/);
      assert.match(res.body.error.message, /control:write/);
    });

    test('an OSCAL catalog body plans and applies as a framework; prune is refused with it', async () => {
      const body = JSON.stringify(CATALOG);
      const headers = { 'content-type': 'application/json', 'idempotency-key': key() };
      const res = await put('?source=oscal-catalog&frameworkKey=example', body, headers);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.counts.frameworks.created, 1);
      const exported = (await api(server.url, '/v1/program', token)).body.data;
      const example = exported.frameworks.find((f: { key: string }) => f.key === 'example');
      assert.deepEqual(
        example.requirements.map((r: { code: string }) => r.code),
        ['AC-1', 'AC-2', 'AC-2.1'],
      );
      const pruned = await put('?source=oscal-catalog&prune=true', body, { ...headers, 'idempotency-key': key() });
      assert.equal(pruned.status, 400);
      assert.equal(pruned.body.error.details[0].field, 'prune');
      const broken = await put('?source=oscal-catalog&mode=plan', JSON.stringify({ catalog: { ...CATALOG.catalog, uuid: 'nope' } }), {
        'content-type': 'application/json',
      });
      assert.equal(broken.status, 400);
      assert.equal(broken.body.error.details[0].field, '/catalog/uuid');
      assert.equal(broken.body.error.details[0].line, 1);
    });

    test('GET /v1/program: JSON in the envelope, YAML on request; either applies back with no change', async () => {
      const json = await api(server.url, '/v1/program', token);
      assert.equal(json.status, 200);
      assert.equal(json.body.data.version, 1);
      const asYaml = await api(server.url, '/v1/program', token, { headers: { accept: 'application/yaml' } });
      assert.equal(asYaml.status, 200);
      assert.match(asYaml.headers.get('content-type') ?? '', /application\/yaml/);
      assert.match(asYaml.body, /^# yaml-language-server: \$schema=.*\/v1\/program\/schema\n/);
      assert.deepEqual(parseYaml(asYaml.body), json.body.data);
      const back = await put('?mode=plan', asYaml.body);
      assert.equal(back.status, 200, JSON.stringify(back.body));
      assert.equal(back.body.data.changed, false, JSON.stringify(back.body.data.changes));
    });

    test('GET /v1/program needs the read scopes; kinds outside the plan are left out', async () => {
      const limited = await createOrgWithCredential(server.system, { name: 'Limited', plan: 'control,policy', accessLevel: 'read_only' });
      const res = await api(server.url, '/v1/program', await getToken(server.url, limited));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.frameworks, undefined);
    });
  });
}
