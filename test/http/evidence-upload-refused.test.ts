// POST /v1/evidence/{evidenceId}/attachments over real HTTP, on every database engine with the
// local-disk blob store: every refusal (400 naming the field, with nothing recorded and no blob left
// behind), scopes and lookup (401, 403, 404) and the Idempotency-Key header's presence and form.
// Shared setup: test/harness/uploads.ts.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dialects } from '../harness/engines.ts';
import { addCredential, api, createOrgWithCredential, getToken, type TestServer } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import {
  MiB,
  SECOND,
  HOUR,
  NOW,
  IN_Q1,
  IN_Q4_2025,
  assertNoUncaughtException,
  type Part,
  file,
  field,
  date,
  note,
  formOf,
  rawBody,
  multipartType,
  type Body,
  newKey,
  payload,
  walkDir,
  type Harness,
  assertError,
  assertRefused,
  assertRefusedCleanly,
  largePair,
  startLocalDiskUploads,
  stopLocalDiskUploads,
} from '../harness/uploads.ts';

for (const dialect of dialects) {
  describe(`POST /v1/evidence/{evidenceId}/attachments (${dialect}, local disk)`, () => {
    let server: TestServer;
    let blobDir: string;
    let h: Harness;

    before(async () => {
      ({ server, blobDir, h } = await startLocalDiskUploads(dialect, () => NOW));
    });
    after(() => stopLocalDiskUploads(server, blobDir));
    afterEach(assertNoUncaughtException);

    // ---------------------------------------------------------------- refusals

    describe('refusals: 400 validation_failed naming the field; nothing recorded, no blob left', () => {
      let target: string;
      before(async () => {
        // An evidence record whose status an upload would change, with one attachment already listed.
        target = await h.evidence({ status: 'needs_revision', approvers: true });
        await artifactFixtures(server.database.db, h.client.organizationId).attachment(target, {
          displayName: 'earlier.txt',
          type: 'text',
          hosted: true,
          evidenceDate: IN_Q4_2025,
          addedOn: Date.UTC(2025, 10, 4),
        });
      });

      const good = () => file('good.txt', payload(1 * MiB, 9)); // a file that is stored before the bad one arrives
      const cases: Array<[label: string, parts: () => Part[], fieldName: string]> = [
        ['.pdf is not an accepted type', () => [file('report.pdf', '%PDF-1.7'), date(IN_Q1)], 'files'],
        ['.exe is not an accepted type', () => [file('setup.exe', 'MZ'), date(IN_Q1)], 'files'],
        ['a file name without extension', () => [file('README', 'hello'), date(IN_Q1)], 'files'],
        ['a file name ending with a dot', () => [file('report.', 'hello'), date(IN_Q1)], 'files'],
        ['an unsupported file after a stored one', () => [date(IN_Q1), good(), file('virus.exe', 'MZ')], 'files'],
        ['six files', () => [date(IN_Q1), ...Array.from({ length: 6 }, (_, i) => file(`f${i}.txt`, `file ${i}`))], 'files'],
        ['.numbers not starting with the zip signature', () => [file('sheet.numbers', 'not a zip at all'), date(IN_Q1)], 'files'],
        [
          '.pages not starting with the zip signature, after a stored file',
          () => [good(), file('doc.pages', Buffer.from('PK\x05\x06rest')), date(IN_Q1)],
          'files',
        ],
        ['.pages shorter than the zip signature', () => [file('doc.pages', 'PK'), date(IN_Q1)], 'files'],
        ['an empty (0-byte) file', () => [file('empty.txt', ''), date(IN_Q1)], 'files'],
        ['an empty file after a stored one', () => [good(), file('empty.csv', ''), date(IN_Q1)], 'files'],
        ['evidenceDate one hour in the future', () => [file('a.txt', 'a'), date(NOW + HOUR)], 'evidenceDate'],
        ['evidenceDate 60.001 s in the future, after a stored file', () => [good(), date(NOW + 60 * SECOND + 1)], 'evidenceDate'],
        ['evidenceDate "yesterday"', () => [file('a.txt', 'a'), date('yesterday')], 'evidenceDate'],
        ['evidenceDate "1.5e12"', () => [file('a.txt', 'a'), date('1.5e12')], 'evidenceDate'],
        ['evidenceDate empty', () => [file('a.txt', 'a'), date('')], 'evidenceDate'],
        ['evidenceDate negative', () => [file('a.txt', 'a'), date(-1)], 'evidenceDate'],
        ['evidenceDate with trailing text', () => [file('a.txt', 'a'), date(`${IN_Q1}ms`)], 'evidenceDate'],
        ['evidenceDate missing', () => [good(), file('b.txt', 'b')], 'evidenceDate'],
        ['evidenceDate given twice', () => [date(IN_Q1), good(), date(IN_Q1)], 'evidenceDate'],
        ['no files', () => [date(IN_Q1), note('nothing attached')], 'files'],
        ['an empty form', () => [], 'files'],
        ['note of 2001 characters', () => [good(), date(IN_Q1), note('é'.repeat(2001))], 'note'],
        ['note of 9000 characters (over the parser\u2019s field limit)', () => [good(), date(IN_Q1), note('n'.repeat(9000))], 'note'],
        ['note given twice', () => [good(), date(IN_Q1), note('one'), note('two')], 'note'],
        ['a file in a part named "file"', () => [file('a.txt', 'a', 'file'), date(IN_Q1)], 'file'],
        ['a file in a part named "file" after a stored one', () => [good(), file('a.txt', 'a', 'file'), date(IN_Q1)], 'file'],
        ['an unknown field "foo"', () => [good(), date(IN_Q1), field('foo', 'bar')], 'foo'],
        // Refused before their bytes are read, while the rest of the body is still arriving:
        ['a large .pdf as the first part', () => [file('scan.pdf', payload(8 * MiB, 12)), date(IN_Q1)], 'files'],
        ['a large file in a part named "file"', () => [file('a.txt', payload(8 * MiB, 13), 'file'), date(IN_Q1)], 'file'],
        ['a large .exe after a stored file', () => [date(IN_Q1), good(), file('tool.exe', payload(8 * MiB, 14))], 'files'],
      ];
      for (const [label, parts, fieldName] of cases) {
        test(label, async () => {
          await assertRefusedCleanly(h, target, () => h.post(target, parts()), fieldName, label);
        });
      }

      test('a refused file type is named with the types that are accepted', async () => {
        const res = await h.post(target, [file('report.pdf', '%PDF-1.7'), date(IN_Q1)]);
        assertRefused(res, 'files', '.pdf');
        const message: string = res.body.error.details.find((d: { field: string }) => d.field === 'files').message;
        assert.match(message, /^report\.pdf: /, message);
        // Every accepted extension is listed, so the user can convert the file without a trip to the docs.
        for (const ext of ['.docx', '.xlsx', '.pptx', '.txt', '.md', '.csv', '.json', '.png', '.jpg', '.zip', '.numbers', '.eml', '.evtx'])
          assert.ok(message.includes(ext), `${ext} in "${message}"`);
        assert.ok(!message.includes('.pdf,'), message);
      });

      test('files totalling 100 MiB + 1 byte', async () => {
        await assertRefusedCleanly(h, target, () => h.post(target, [date(IN_Q1), ...largePair(1)]), 'files', '100 MiB + 1');
      });

      const boundary = 'refusal-boundary-7';
      const rawCases: Array<[label: string, body: () => Body, fieldName: string]> = [
        [
          'a body without the closing boundary',
          () => ({
            raw: rawBody([date(IN_Q1), file('a.txt', 'complete file')], boundary, { close: false }),
            contentType: multipartType(boundary),
          }),
          'body',
        ],
        [
          'a body cut off in the middle of the second file',
          () => ({
            raw: Buffer.concat([
              rawBody([date(IN_Q1), good()], boundary, { close: false }),
              Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="cut.txt"\r\n\r\n`),
              payload(200 * 1024, 10),
            ]),
            contentType: multipartType(boundary),
          }),
          'body',
        ],
        [
          'a file part without a file name',
          () => ({ raw: rawBody([date(IN_Q1), file('', 'data')], boundary), contentType: multipartType(boundary) }),
          'files',
        ],
        [
          'multipart/form-data without a boundary',
          () => ({ raw: rawBody([date(IN_Q1), file('a.txt', 'a')], boundary), contentType: 'multipart/form-data' }),
          'Content-Type',
        ],
        [
          'a JSON body',
          () => ({ raw: JSON.stringify({ evidenceDate: IN_Q1, files: ['a.txt'] }), contentType: 'application/json' }),
          'Content-Type',
        ],
        ['a text/plain body', () => ({ raw: 'hello', contentType: 'text/plain' }), 'Content-Type'],
      ];
      for (const [label, body, fieldName] of rawCases) {
        test(label, async () => {
          await assertRefusedCleanly(h, target, () => h.post(target, body()), fieldName, label);
        });
      }

      test('the refusal target was never changed and its journal stayed empty', async () => {
        const got = await h.get(target);
        assert.equal(got.body.data.status, 'needs_revision');
        assert.deepEqual(
          got.body.data.attachments.map((a: any) => a.displayName),
          ['earlier.txt'],
        );
        assert.equal(await h.pendingCount(), 0);
        assert.deepEqual(walkDir(blobDir).tmp, []);
      });
    });

    // ---------------------------------------------------------------- scope and auth

    describe('scope and lookup', () => {
      test('a read-only credential → 403 forbidden, nothing recorded', async () => {
        const evidenceId = await h.evidence();
        const readOnly = await addCredential(server.system, h.client.organizationId, 'read_only');
        const t = await getToken(server.url, readOnly);
        const before = await h.state(evidenceId);
        assertError(await h.post(evidenceId, [file('a.txt', 'a'), date(IN_Q1)], { token: t }), 403, 'forbidden');
        assert.deepEqual(await h.state(evidenceId), before);
      });

      test('no token → 401 unauthorized', async () => {
        const evidenceId = await h.evidence();
        const res = await api(server.url, `/v1/evidence/${evidenceId}/attachments`, undefined, {
          method: 'POST',
          headers: { 'idempotency-key': newKey() },
          body: formOf([file('a.txt', 'a'), date(IN_Q1)]),
        });
        assertError(res, 401, 'unauthorized');
      });

      test('an unknown evidence ID → 404 not_found, no blob written', async () => {
        const before = await h.blobKeys();
        assertError(await h.post(randomUUID(), [file('a.txt', 'a'), date(IN_Q1)]), 404, 'not_found');
        assertError(await h.post(randomUUID(), [file('a.txt', 'a'), date(IN_Q1)], { plural: true }), 404, 'not_found', 'plural');
        assert.deepEqual(await h.blobKeys(), before);
        assert.equal(await h.pendingCount(), 0);
      });

      test('another organization\u2019s evidence → 404 not_found, and it stays untouched', async () => {
        const other = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name: 'Other Org' });
        const otherToken = await getToken(server.url, other);
        const otherEvidence = await artifactFixtures(server.database.db, other.organizationId).evidence({
          name: 'Theirs',
          status: 'not_uploaded',
        });
        const before = await api(server.url, `/v1/evidence/${otherEvidence}?fields=attachments`, otherToken);
        const blobsBefore = await h.blobKeys();
        assertError(await h.post(otherEvidence, [file('a.txt', 'a'), date(IN_Q1)]), 404, 'not_found');
        assert.deepEqual(
          (await api(server.url, `/v1/evidence/${otherEvidence}?fields=attachments`, otherToken)).body.data,
          before.body.data,
        );
        assert.deepEqual(await h.blobKeys(), blobsBefore);
      });

      test('a missing Idempotency-Key → 400 idempotency_key_required, nothing recorded', async () => {
        const evidenceId = await h.evidence();
        const before = await h.state(evidenceId);
        assertError(await h.post(evidenceId, [file('a.txt', 'a'), date(IN_Q1)], { key: null }), 400, 'idempotency_key_required');
        assert.deepEqual(await h.state(evidenceId), before);
      });

      test('an invalid Idempotency-Key → 400 validation_failed naming it', async () => {
        const evidenceId = await h.evidence();
        const before = await h.state(evidenceId);
        assertRefused(await h.post(evidenceId, [file('a.txt', 'a'), date(IN_Q1)], { key: 'has space' }), 'Idempotency-Key');
        assertRefused(await h.post(evidenceId, [file('a.txt', 'a'), date(IN_Q1)], { key: 'k'.repeat(129) }), 'Idempotency-Key');
        assert.deepEqual(await h.state(evidenceId), before);
      });
    });
  });
}
