// Every bounded input of the document is bounded on the server at the same length: for each /v1
// parameter with a maxLength, one character more answers 400 validation_failed whose details name
// the parameter and say how long it may be, and exactly maxLength is never refused for its length.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { MAX_LIST_PARAM_LENGTH } from '../../src/http/schemas/lists.ts';

const env = { RATE_LIMIT_MAX: '100000', UNAUTHENTICATED_RATE_LIMIT_MAX: '100000' };
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const LENGTH_MESSAGE = /must be at most \d+ characters long/;

interface Param {
  in: string;
  name: string;
  required?: boolean;
  schema: { maxLength?: number };
}

for (const dialect of dialects) {
  describe(`input bounds match the document (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let doc: any;
    before(async () => {
      server = await startServer({ dialect, env });
      token = await getToken(server.url, await createOrgWithCredential(server.system, { accessLevel: 'read_write' }));
      doc = await (await fetch(`${server.url}/openapi.json`)).json();
    });
    after(() => server?.close());

    /** The request of `op` with `value` in `target` and placeholders elsewhere. */
    function send(method: string, path: string, params: Param[], target: Param, value: string) {
      let url = path;
      const query = new URLSearchParams();
      const headers: Record<string, string> = {};
      for (const p of params) {
        if (p !== target && !p.required) continue;
        const v = p === target ? value : p.in === 'header' ? `bounds-${randomUUID()}` : 'placeholder';
        if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(v));
        else if (p.in === 'query') query.set(p.name, v);
        else if (p.in === 'header') headers[p.name] = v;
      }
      const qs = query.size > 0 ? `?${query}` : '';
      return api(server.url, `${url}${qs}`, token, { method: method.toUpperCase(), headers });
    }

    test('one character over maxLength answers 400 naming the parameter; maxLength itself passes the length check', async () => {
      let checked = 0;
      for (const [path, item] of Object.entries<any>(doc.paths)) {
        if (!path.startsWith('/v1/')) continue;
        for (const method of METHODS.filter((m) => item[m])) {
          const params: Param[] = item[method].parameters ?? [];
          for (const p of params.filter((q) => typeof q.schema.maxLength === 'number')) {
            const label = `${method.toUpperCase()} ${path} ${p.in} ${p.name}`;
            const max = p.schema.maxLength!;
            const over = await send(method, path, params, p, 'x'.repeat(max + 1));
            assert.equal(over.status, 400, `${label}: ${JSON.stringify(over.body)}`);
            assert.equal(over.body.error.code, 'validation_failed', label);
            const named = over.body.error.details.filter((d: any) => d.field.toLowerCase() === p.name.toLowerCase());
            assert.ok(named.length > 0, `${label}: details name it: ${JSON.stringify(over.body.error.details)}`);
            if (p.in !== 'header')
              assert.ok(
                named.some((d: any) => LENGTH_MESSAGE.test(d.message)),
                `${label}: says how long: ${JSON.stringify(named)}`,
              );
            const atMax = await send(method, path, params, p, 'x'.repeat(max));
            const lengthIssue = (atMax.body?.error?.details ?? []).find(
              (d: any) => d.field.toLowerCase() === p.name.toLowerCase() && LENGTH_MESSAGE.test(d.message),
            );
            assert.equal(lengthIssue, undefined, `${label}: ${max} characters are not refused for their length`);
            checked++;
          }
        }
      }
      assert.ok(checked >= 40, `checked ${checked} bounded parameters`);
    });

    test('list filters, nextCursor and path IDs have the documented bounds', async () => {
      const controls = doc.paths['/v1/controls'].get.parameters;
      assert.equal(controls.find((p: Param) => p.name === 'frameworkIds').schema.maxLength, MAX_LIST_PARAM_LENGTH);
      assert.equal(controls.find((p: Param) => p.name === 'status').schema.maxLength, MAX_LIST_PARAM_LENGTH);
      const cursor = doc.paths['/v1/vulnerabilities'].get.parameters.find((p: Param) => p.name === 'nextCursor');
      assert.equal(cursor.schema.maxLength, 1024);
      assert.equal(doc.paths['/v1/controls/{controlId}'].get.parameters.find((p: Param) => p.in === 'path').schema.maxLength, 512);
    });

    test('a list filter over 4096 characters is refused naming it, not searched for', async () => {
      const ids = Array.from({ length: 500 }, (_, i) => `fw_${String(i).padStart(6, '0')}`).join(',');
      assert.ok(ids.length > MAX_LIST_PARAM_LENGTH);
      const res = await api(server.url, `/v1/controls?frameworkIds=${ids}`, token);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(res.body.error.details, [{ field: 'frameworkIds', message: 'must be at most 4096 characters long' }]);
    });

    test('a nextCursor over 1024 characters is refused naming it', async () => {
      const res = await api(server.url, `/v1/vulnerabilities?nextCursor=${'A'.repeat(1025)}`, token);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(res.body.error.details, [{ field: 'nextCursor', message: 'must be at most 1024 characters long' }]);
    });
  });
}
