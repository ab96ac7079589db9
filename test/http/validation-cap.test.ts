// Validation answers are bounded (issue 28 item 6; docs/security.md, "Malformed requests"):
// - a JSON body of more than MAX_JSON_ENTRIES fields and list items is refused before it is parsed,
//   with one detail naming `body` (a 1 MiB body of 131,000 unknown keys used to be answered with
//   6.6 MB of details), on console sign-in and on /v1 writes alike;
// - below that, a validation answer lists at most MAX_LISTED_DETAILS entries, the last saying how
//   many problems were left out, for bodies and query strings; a request with a few problems still
//   has each listed;
// - the largest body the API accepts is far below the bound.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { minimal, newKey, post, show, type Response } from '../harness/vulnerability-writes.ts';
import { unknownKeys, unknownKeysFilling } from '../harness/unknown-keys.ts';
import { MAX_JSON_ENTRIES } from '../../src/http/json-body.ts';
import { MAX_LISTED_DETAILS } from '../../src/http/plugins/error-handler.ts';

// The malformed-request limit is out of the way here: test/http/malformed-limit.test.ts tests it.
const env = { RATE_LIMIT_MAX: '100000', MALFORMED_RATE_LIMIT_MAX: '100000' };

const signIn = (server: TestServer, body: string) =>
  api(server.url, '/console/api/session', undefined, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** The answer is a 400 validation_failed of at most MAX_LISTED_DETAILS field issues and at most `maxBytes` bytes. */
async function assertBounded(res: Response, maxBytes: number) {
  assert.equal(res.status, 400, show(res).slice(0, 500));
  assert.equal(res.body.error.code, 'validation_failed');
  assert.ok(res.body.error.details.length <= MAX_LISTED_DETAILS, `${res.body.error.details.length} details`);
  for (const d of res.body.error.details) assert.deepEqual(Object.keys(d), ['field', 'message']);
  const bytes = Buffer.byteLength(JSON.stringify(res.body));
  assert.ok(bytes <= maxBytes, `the answer is ${bytes} bytes`);
}

/** The last of exactly MAX_LISTED_DETAILS entries names `field` and says `more` problems were not listed. */
function assertMoreNotListed(res: Response, field: string, more: number) {
  const details = res.body.error.details;
  assert.equal(details.length, MAX_LISTED_DETAILS, show(res));
  assert.deepEqual(details.at(-1), { field, message: `has ${more} more problems that are not listed` });
}

for (const dialect of dialects) {
  describe(`validation answers are bounded (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    before(async () => {
      server = await startServer({ dialect, env });
      token = await getToken(server.url, await createOrgWithCredential(server.system, { accessLevel: 'read_write' }));
    });
    after(() => server?.close());

    const tooMany = { field: 'body', message: `must hold at most ${MAX_JSON_ENTRIES} fields and list items in all` };

    test('a 1 MiB sign-in body of unknown keys answers a 400 of one detail naming the body', async () => {
      const { body, keys } = unknownKeysFilling(server.config.bodyLimitBytes - 64);
      assert.ok(keys > 100_000, `${keys} keys`);
      const res = await signIn(server, body);
      await assertBounded(res, 1024);
      assert.deepEqual(res.body.error.details, [tooMany]);
      assert.equal(res.headers.get('set-cookie'), null);
    });

    test('a 1 MiB /v1 write of unknown keys with a valid token answers the same, and writes nothing', async () => {
      const { body } = unknownKeysFilling(server.config.bodyLimitBytes - 64);
      const res = await post(server, token, body);
      await assertBounded(res, 1024);
      assert.deepEqual(res.body.error.details, [tooMany]);
      const list = await api(server.url, '/v1/vulnerabilities', token);
      assert.equal(list.status, 200, show(list));
      assert.deepEqual(list.body.data, []);
    });

    test(`${MAX_JSON_ENTRIES} entries are validated, one more is refused unparsed; JSON text in strings does not count`, async () => {
      // MAX_JSON_ENTRIES keys: 2 problems for the required fields and one per key
      const atBound = await signIn(server, unknownKeys(MAX_JSON_ENTRIES));
      await assertBounded(atBound, 4096);
      assertMoreNotListed(atBound, 'body', MAX_JSON_ENTRIES + 2 - (MAX_LISTED_DETAILS - 1));
      assert.deepEqual(atBound.body.error.details.slice(0, 3), [
        { field: 'email', message: 'is required' },
        { field: 'password', message: 'is required' },
        { field: 'k0', message: 'is not an accepted field' },
      ]);
      const over = await signIn(server, unknownKeys(MAX_JSON_ENTRIES + 1));
      assert.deepEqual(over.body.error.details, [tooMany]);
      // commas inside strings are text, not entries, past escaped quotes and up to a closing quote
      // after an escaped backslash: the password is too long, not the body too big
      const password = `\\"${','.repeat(MAX_JSON_ENTRIES * 2)}\\\\`;
      const inStrings = await signIn(server, `{"email":"nobody@example.com","password":"${password}"}`);
      assert.equal(inStrings.status, 400, show(inStrings));
      assert.deepEqual(
        inStrings.body.error.details.map((d: { field: string }) => d.field),
        ['password'],
      );
    });

    test('a /v1 write with a thousand unknown fields lists 19 and says how many more', async () => {
      const body = JSON.stringify({ ...minimal('VUL-0001'), ...JSON.parse(unknownKeys(1000)) });
      const res = await post(server, token, body);
      await assertBounded(res, 4096);
      assertMoreNotListed(res, 'body', 1000 - (MAX_LISTED_DETAILS - 1));
      assert.deepEqual(res.body.error.details[0], { field: 'k0', message: 'is not an accepted field' });
    });

    test('a query string of two thousand unknown parameters lists 19 and says how many more are in the query', async () => {
      const query = Array.from({ length: 2000 }, (_, i) => `q${i}=1`).join('&');
      const res = await api(server.url, `/v1/vulnerabilities?${query}`, token);
      await assertBounded(res, 4096);
      assertMoreNotListed(res, 'query', 2000 - (MAX_LISTED_DETAILS - 1));
      assert.deepEqual(res.body.error.details[0], { field: 'q0', message: 'is not a known parameter' });
    });

    test('a request with a few problems still has every one listed', async () => {
      const res = await post(server, token, { vulnerabilityId: 'nope', title: ' ', severity: 'huge', status: 'ignored', extra: 1 });
      assert.equal(res.status, 400, show(res));
      assert.deepEqual(res.body.error.details.map((d: { field: string }) => d.field).sort(), [
        'extra',
        'severity',
        'status',
        'title',
        'vulnerabilityId',
      ]);
      const empty = await signIn(server, '{}');
      assert.deepEqual(empty.body.error.details, [
        { field: 'email', message: 'is required' },
        { field: 'password', message: 'is required' },
      ]);
    });

    test('the largest body the API accepts (100 affected resources of 3 tags each) is far below the bound', async () => {
      const affectedResources = Array.from({ length: 100 }, (_, i) => ({ name: `host-${i}`, type: 'server', tags: ['a', 'b', 'c'] }));
      const body = JSON.stringify(
        minimal('VUL-0002', { description: 'd', remediation: 'r', stepsToReproduce: 's', fixAvailable: 'yes', affectedResources }),
      );
      assert.ok((body.match(/,/g) ?? []).length < MAX_JSON_ENTRIES / 4);
      const res = await post(server, token, body, newKey());
      assert.equal(res.status, 201, show(res));
    });
  });
}
