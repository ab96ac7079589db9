// A refused request says, for each field it names, what is allowed in words a person can act on:
// one entry per field ("count must be 50 or 100", "vulnerabilityId must look like VUL-1234 or
// CVE-2024-12345"), never the validator's own phrasing, in the spec's envelope
// ({ error: { code, message, details: [{ field, message }] }, meta }).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';

const RAW_VALIDATOR_TEXT = /must NOT|must match pattern|equal to|must be integer|must be string|must be <=|must be >=|must match format/;

describe('validation messages name the field and what is allowed', () => {
  let server: TestServer;
  let token: string;

  before(async () => {
    server = await startServer();
    token = await getToken(server.url, await createOrgWithCredential(server.system, { accessLevel: 'read_write' }));
  });
  after(async () => server?.close());

  function assertDetails(res: { status: number; body: any }, expected: Record<string, string | RegExp>) {
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'validation_failed');
    const details: Array<{ field: string; message: string }> = res.body.error.details;
    for (const detail of details) assert.deepEqual(Object.keys(detail).sort(), ['field', 'message'], 'the spec’s detail shape');
    const fields = details.map((d) => d.field);
    assert.equal(new Set(fields).size, fields.length, `one entry per field: ${JSON.stringify(details)}`);
    for (const detail of details) assert.doesNotMatch(detail.message, RAW_VALIDATOR_TEXT, JSON.stringify(detail));
    for (const [field, message] of Object.entries(expected)) {
      const detail = details.find((d) => d.field === field);
      assert.ok(detail, `${field} is named: ${JSON.stringify(details)}`);
      if (typeof message === 'string') assert.equal(detail.message, message, field);
      else assert.match(detail.message, message, field);
    }
  }

  test('query parameters: a page size that is not offered, whatever was sent', async () => {
    for (const count of ['70', 'abc', '-1', '50.5'])
      assertDetails(await api(server.url, `/v1/vulnerabilities?count=${count}`, token), { count: 'must be 50 or 100' });
  });

  test('a create body with several mistakes: each field once, in words', async () => {
    const res = await api(server.url, '/v1/vulnerabilities', token, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'messages-1' },
      body: JSON.stringify({
        vulnerabilityId: 'bad id',
        title: '',
        severity: 'huge',
        status: 'open',
        fixAvailable: 'maybe',
        description: 5,
        assigneeEmail: 'not an email',
        affectedResources: [{ name: '   ', type: 'vm', tags: ['a', 'b', 'c', 'd'] }],
      }),
    });
    assertDetails(res, {
      vulnerabilityId: 'must look like VUL-1234 or CVE-2024-12345',
      title: 'must not be empty',
      severity: 'must be critical, high, medium or low',
      fixAvailable: 'must be yes or no',
      description: 'must be text (a JSON string)',
      assigneeEmail: 'must be an email address',
      'affectedResources[0].name': 'must not be blank',
      'affectedResources[0].tags': 'must list at most 3 items',
    });
  });

  test('missing and unknown fields, and lengths', async () => {
    const res = await api(server.url, '/v1/vulnerabilities', token, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'messages-2' },
      body: JSON.stringify({ title: 'x'.repeat(300), cvssScore: 11 }),
    });
    assertDetails(res, {
      vulnerabilityId: 'is required',
      severity: 'is required',
      cvssScore: 'is not an accepted field',
      title: 'must be at most 255 characters long',
    });
  });
});
