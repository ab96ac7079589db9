// Idempotency records across the upgrade that made them store what a write did instead of how it
// was answered (migration 0006, docs/decisions/writes-and-uploads.md "Fingerprint" and "Replays"), on every database
// engine: a record stored by the previous version (status code, headers, a fingerprint over the
// method and path) still replays the same answer, and still refuses a changed request; records
// stored now hold the outcome and nothing of HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { canonicalJson } from '../../src/domain/idempotency/fingerprint.ts';
import { insertClaim } from '../../src/storage/db/repositories/service/idempotency.ts';

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
/** The fingerprints the previous version stored: method, canonical path, then the body. */
const oldJsonFingerprint = (method: string, path: string, body: unknown) => sha256(`${method}\n${path}\njson\n${canonicalJson(body)}`);
const oldMultipartFingerprint = (path: string, parts: unknown[]) => sha256(`POST\n${path}\nmultipart\n${JSON.stringify(parts)}`);

let keySeq = 0;
const newKey = () => `upgrade-${Date.now().toString(36)}-${++keySeq}`;

for (const dialect of dialects) {
  describe(`idempotency records of the previous version (${dialect})`, () => {
    let server: TestServer;
    let blobDir: string;
    let client: Client;
    let token: string;

    before(async () => {
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-upgrade-blobs-'));
      server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '100000', BLOB_DIR: blobDir } });
      client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      token = await getToken(server.url, client);
    });
    after(async () => {
      await server?.close();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });

    const record = (key: string) =>
      server.database.db.kysely
        .selectFrom('idempotency_records')
        .select(['fingerprint', 'outcome', 'status_code', 'response_body', 'response_headers'])
        .where('credential_id', '=', client.credentialId)
        .where('idempotency_key', '=', key)
        .executeTakeFirstOrThrow();

    /** Rewrites a completed record as the previous version stored it. */
    const makeLegacy = (key: string, fields: { fingerprint: string; statusCode: number; headers: Record<string, string> }) =>
      server.database.db.kysely
        .updateTable('idempotency_records')
        .set({
          fingerprint: fields.fingerprint,
          outcome: null,
          status_code: fields.statusCode,
          response_headers: JSON.stringify(fields.headers),
        })
        .where('credential_id', '=', client.credentialId)
        .where('idempotency_key', '=', key)
        .execute();

    const send = (method: string, url: string, key: string, body: unknown) =>
      api(server.url, url, token, {
        method,
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });

    test('a created finding stored by the previous version replays 201 with Location; a changed body is refused', async () => {
      const body = { vulnerabilityId: 'VUL-0101', title: 'Upgrade', severity: 'high', status: 'open' };
      const key = newKey();
      const first = await send('POST', '/v1/vulnerabilities', key, body);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const stored = await record(key);
      assert.equal(stored.outcome, 'created', 'a record stores what the write did');
      assert.equal(stored.status_code, null, 'and no status code');
      assert.equal(stored.response_headers, null, 'nor headers');
      assert.deepEqual(JSON.parse(stored.response_body!), first.body.data);

      await makeLegacy(key, {
        fingerprint: oldJsonFingerprint('POST', '/v1/vulnerabilities', body),
        statusCode: 201,
        headers: { Location: '/v1/vulnerabilities/api%23VUL-0101' },
      });
      const replay = await send('POST', '/v1/vulnerabilities', key, {
        status: 'open',
        severity: 'high',
        title: 'Upgrade',
        vulnerabilityId: 'VUL-0101',
      });
      assert.equal(replay.status, 201, JSON.stringify(replay.body));
      assert.equal(replay.headers.get('location'), '/v1/vulnerabilities/api%23VUL-0101');
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body.data, first.body.data);

      const changed = await send('POST', '/v1/vulnerabilities', key, { ...body, title: 'Changed' });
      assert.equal(changed.status, 409);
      assert.equal(changed.body.error.code, 'idempotency_key_reused');
    });

    test('an update stored by the previous version replays 200 without Location', async () => {
      const created = await send('POST', '/v1/vulnerabilities', newKey(), {
        vulnerabilityId: 'VUL-0102',
        title: 'Upgrade',
        severity: 'low',
        status: 'open',
      });
      const id = created.body.data.vulnerabilityId;
      const body = { reportLink: 'https://example.com/report' };
      const key = newKey();
      const first = await send('PATCH', `/v1/vulnerabilities/${id}`, key, body);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal((await record(key)).outcome, 'updated');

      await makeLegacy(key, { fingerprint: oldJsonFingerprint('PATCH', `/v1/vulnerabilities/${id}`, body), statusCode: 200, headers: {} });
      const replay = await send('PATCH', `/v1/vulnerabilities/${id}`, key, body);
      assert.equal(replay.status, 200, JSON.stringify(replay.body));
      assert.equal(replay.headers.get('location'), null);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body.data, first.body.data);
      assert.equal((await send('PATCH', `/v1/vulnerabilities/${id}`, key, { reportLink: '' })).body.error.code, 'idempotency_key_reused');
    });

    test('an upload stored by the previous version replays 201, under either path; other parts are refused', async () => {
      const evidenceId = await artifactFixtures(server.database.db, client.organizationId).evidence({
        name: 'Upgrade evidence',
        status: 'not_uploaded',
        recurrence: 'quarterly',
        approvers: [],
        modifiedOn: Date.UTC(2025, 0, 2),
      });
      const content = Buffer.from('upgrade\n');
      const evidenceDate = String(Date.UTC(2025, 0, 3));
      const form = (text: Buffer) => {
        const f = new FormData();
        f.append('evidenceDate', evidenceDate);
        f.append('files', new Blob([new Uint8Array(text)]), 'notes.txt');
        return f;
      };
      const upload = (base: string, key: string, text: Buffer) =>
        api(server.url, `${base}/${evidenceId}/attachments`, token, {
          method: 'POST',
          headers: { 'idempotency-key': key },
          body: form(text),
        });
      const key = newKey();
      const first = await upload('/v1/evidence', key, content);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal((await record(key)).outcome, 'created');

      const parts = [
        ['field', 'evidenceDate', evidenceDate],
        ['file', 'files', 'notes.txt', sha256(content)],
      ];
      await makeLegacy(key, {
        fingerprint: oldMultipartFingerprint(`/v1/evidence/${evidenceId}/attachments`, parts),
        statusCode: 201,
        headers: {},
      });
      for (const base of ['/v1/evidence', '/v1/evidences']) {
        const replay = await upload(base, key, content);
        assert.equal(replay.status, 201, `${base}: ${JSON.stringify(replay.body)}`);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(replay.body.data, first.body.data);
      }
      const other = await upload('/v1/evidence', key, Buffer.from('other\n'));
      assert.equal(other.status, 409);
      assert.equal(other.body.error.code, 'idempotency_key_reused');
    });

    test('a claim in progress on a node of the previous version: the same request waits, a changed one is refused', async () => {
      const body = { vulnerabilityId: 'VUL-0103', title: 'Upgrade', severity: 'medium', status: 'open' };
      const key = newKey();
      const now = Date.now();
      await insertClaim(server.database.db.kysely, {
        credentialId: client.credentialId,
        key,
        organizationId: client.organizationId,
        fingerprint: oldJsonFingerprint('POST', '/v1/vulnerabilities', body),
        owner: 'old-node',
        now,
        leaseUntil: now + 3600_000,
      });
      assert.equal((await send('POST', '/v1/vulnerabilities', key, body)).body.error.code, 'idempotency_request_in_progress');
      assert.equal(
        (await send('POST', '/v1/vulnerabilities', key, { ...body, title: 'Changed' })).body.error.code,
        'idempotency_key_reused',
      );
    });
  });
}
