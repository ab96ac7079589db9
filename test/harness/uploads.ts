// POST /v1/evidence/{evidenceId}/attachments (and its plural alias) over real HTTP, on every
// database engine with the local-disk blob store, plus a few cases against an S3-protocol server
// (s3rver, child process on loopback): what a successful upload records and stores, every refusal
// (with nothing recorded and no blob left behind), scopes, idempotency (replays across boundaries,
// key reuse, release on refusal, 20 concurrent retries) and the clean-up of abandoned uploads.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { addCredential, api, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { fixtures } from '../harness/fixtures.ts';
import { runCleanup } from '../../src/domain/maintenance/cleanup.ts';
import { MAX_TOTAL_BYTES } from '../../src/domain/evidence/upload.ts';
import { insertPendingUpload } from '../../src/storage/db/repositories/uploads.ts';
import { LocalDiskBlobStore } from '../../src/storage/blobs/local-disk.ts';
import { S3BlobStore } from '../../src/storage/blobs/s3.ts';
import type { BlobStore } from '../../src/storage/blobs/store.ts';
import type { S3Settings } from '../../src/config.ts';
import { startS3rver } from '../harness/s3rver.ts';
import { blobExists } from '../harness/blobs.ts';

const MiB = 1024 * 1024;
const SECOND = 1000;
const HOUR = 3600_000;
/** The servers' clock: 10 February 2026, noon UTC (first quarter of 2026). */
const NOW = Date.UTC(2026, 1, 10, 12);
/** An evidence date in the same quarter as NOW (but a past month). */
const IN_Q1 = Date.UTC(2026, 0, 20, 9, 30);
const Q1_2026 = { periodStart: Date.UTC(2026, 0, 1), periodEnd: Date.UTC(2026, 3, 1) - 1 };
/** An evidence date in the previous quarter. */
const IN_Q4_2025 = Date.UTC(2025, 10, 3, 8);
const Q4_2025 = { periodStart: Date.UTC(2025, 9, 1), periodEnd: Date.UTC(2026, 0, 1) - 1 };
const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

const env = { RATE_LIMIT_MAX: '100000' };

/**
 * The servers of most tests run in this process: an exception no one catches (for example an
 * 'error' event without a listener) would bring a real server down. Record them, and fail the
 * test during which they happen.
 */
const uncaught: unknown[] = [];
process.on('uncaughtException', (err) => uncaught.push(err));
async function assertNoUncaughtException() {
  await new Promise((resolve) => setTimeout(resolve, 25)); // let late stream events fire
  const seen = uncaught.splice(0);
  assert.deepEqual(seen.map(String), [], 'the server raised no uncaught exception (a real server process would have died)');
}

type Response = Awaited<ReturnType<typeof api>>;

// ---- Multipart bodies ----

type Part =
  | { kind: 'file'; name: string; filename: string; content: Buffer }
  | { kind: 'field'; name: string; value: string };

const bytes = (content: Buffer | string) => (typeof content === 'string' ? Buffer.from(content) : content);
const file = (filename: string, content: Buffer | string, name = 'files'): Part => ({ kind: 'file', name, filename, content: bytes(content) });
const field = (name: string, value: string): Part => ({ kind: 'field', name, value });
const date = (value: number | string) => field('evidenceDate', String(value));
const note = (value: string) => field('note', value);

/** A body fetch encodes itself (random boundary). */
function formOf(parts: Part[]): FormData {
  const form = new FormData();
  for (const p of parts) {
    if (p.kind === 'file') form.append(p.name, new Blob([new Uint8Array(p.content)]), p.filename);
    else form.append(p.name, p.value);
  }
  return form;
}

/** A hand-made body with a chosen boundary; `close: false` leaves out the closing delimiter. */
function rawBody(parts: Part[], boundary: string, { close = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if (p.kind === 'file') {
      chunks.push(
        Buffer.from(`Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        p.content,
        Buffer.from('\r\n'),
      );
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    }
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const multipartType = (boundary: string) => `multipart/form-data; boundary=${boundary}`;

/** What an upload sends: parts (as FormData), or a raw body with its content type. */
type Body = Part[] | { raw: Buffer | string; contentType: string };

const sha256 = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');
const show = (res: Response) => `${res.status} ${JSON.stringify(res.body)}`;

let keySeq = 0;
const newKey = () => `upload-${Date.now().toString(36)}-${++keySeq}`;

/** A deterministic, non-repeating-looking payload of `size` bytes. */
function payload(size: number, seed: number): Buffer {
  const buf = Buffer.alloc(size);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < size; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    if (i + 4 <= size) buf.writeUInt32LE(x, i);
    else for (let j = i; j < size; j++) buf[j] = (x >>> ((j - i) * 8)) & 0xff;
  }
  return buf;
}

// ---- Blob directories ----

interface DirState {
  /** every file and directory (directories marked `dir:`), `.tmp` and its contents left out */
  entries: string[];
  /** files inside `.tmp` */
  tmp: string[];
}

function walkDir(dir: string): DirState {
  if (!fs.existsSync(dir)) return { entries: [], tmp: [] };
  const entries: string[] = [];
  const tmp: string[] = [];
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const rel = path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/');
    if (rel === '.tmp') continue;
    if (rel.startsWith('.tmp/')) tmp.push(rel);
    else entries.push(e.isDirectory() ? `dir:${rel}` : rel);
  }
  return { entries: entries.sort(), tmp: tmp.sort() };
}

/** Blob files (keys) under `dir`, `.tmp` left out. */
const blobFiles = (dir: string) => walkDir(dir).entries.filter((e) => !e.startsWith('dir:'));

/** How a harness sees the local-disk blob store under `blobDir`. */
const localDiskBlobs = (blobDir: string) => ({
  list: async () => blobFiles(blobDir),
  read: async (key: string) => fs.readFileSync(path.join(blobDir, ...key.split('/'))),
  tmp: () => walkDir(blobDir).tmp,
});


async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const key of iterable) out.push(key);
  return out.sort();
}

// ---- A test server with its own blob store and helpers ----

interface Harness {
  server: TestServer;
  client: Client;
  token: string;
  /** lists what the upload's blob store holds under `uploads/` */
  blobKeys(): Promise<string[]>;
  /** the bytes of a stored blob */
  readBlob(key: string): Promise<Buffer>;
  /** what a refused request must leave exactly as it was */
  state(evidenceId: string): Promise<unknown>;
  post(evidenceId: string, body: Body, options?: { key?: string | null; token?: string; plural?: boolean }): Promise<Response>;
  get(evidenceId: string, token?: string): Promise<Response>;
  evidence(spec?: { status?: string; recurrence?: string | null; approvers?: boolean; name?: string }): Promise<string>;
  /** attachment rows of an evidence record, straight from the database */
  rows(evidenceId: string): Promise<Array<{ displayName: string; type: string; blobKey: string; sizeBytes: number; sha256: string; uploadId: string }>>;
  pendingCount(): Promise<number>;
}

async function makeHarness(server: TestServer, keys: { list(): Promise<string[]>; read(key: string): Promise<Buffer>; tmp(): string[] }): Promise<Harness> {
  const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
  const token = await getToken(server.url, client);
  const db = server.database.db;
  const org = client.organizationId;
  const people = fixtures(db, org);
  const approver = await people.person('Ada Approver', 'ada@example.com');
  const artifacts = artifactFixtures(db, org);
  let evidenceSeq = 0;

  const h: Harness = {
    server,
    client,
    token,
    blobKeys: keys.list,
    readBlob: keys.read,
    async state(evidenceId) {
      const res = await h.get(evidenceId);
      assert.equal(res.status, 200, show(res));
      return {
        evidence: res.body.data,
        rows: (await h.rows(evidenceId)).map((r) => r.blobKey).sort(),
        pending: await h.pendingCount(),
        blobs: await keys.list(),
        tmp: keys.tmp(),
      };
    },
    post(evidenceId, body, options = {}) {
      const key = options.key === undefined ? newKey() : options.key;
      const headers: Record<string, string> = {};
      if (key !== null) headers['idempotency-key'] = key;
      let requestBody: FormData | Buffer | string;
      if (Array.isArray(body)) requestBody = formOf(body);
      else {
        headers['content-type'] = body.contentType;
        requestBody = body.raw;
      }
      const base = options.plural ? '/v1/evidences' : '/v1/evidence';
      return api(server.url, `${base}/${evidenceId}/attachments`, options.token ?? token, { method: 'POST', headers, body: requestBody });
    },
    get: (evidenceId, t = token) => api(server.url, `/v1/evidence/${evidenceId}?fields=attachments`, t),
    evidence: (spec = {}) =>
      artifacts.evidence({
        name: spec.name ?? `Evidence ${++evidenceSeq}`,
        status: spec.status ?? 'not_uploaded',
        recurrence: spec.recurrence === undefined ? 'quarterly' : spec.recurrence,
        approvers: spec.approvers ? [approver] : [],
        modifiedOn: Date.UTC(2025, 0, 2),
      }),
    async rows(evidenceId) {
      const rows = await db.kysely
        .selectFrom('attachments')
        .select(['display_name', 'type', 'blob_key', 'size_bytes', 'sha256', 'upload_id'])
        .where('organization_id', '=', org)
        .where('evidence_id', '=', evidenceId)
        .orderBy('blob_key')
        .execute();
      return rows.map((r) => ({
        displayName: r.display_name,
        type: r.type,
        blobKey: r.blob_key ?? '',
        sizeBytes: Number(r.size_bytes),
        sha256: r.sha256 ?? '',
        uploadId: r.upload_id ?? '',
      }));
    },
    async pendingCount() {
      const row = await db.kysely
        .selectFrom('pending_uploads')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('organization_id', '=', org)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
  return h;
}

/** 201 with exactly { evidenceId, modifiedOn } and the request ID in meta. */
function assertCreated(res: Response, evidenceId: string, modifiedOn: number, label = '') {
  assert.equal(res.status, 201, `${label}: ${show(res)}`);
  assert.deepEqual(res.body.data, { evidenceId, modifiedOn }, label);
  assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'), label);
}

function assertError(res: Response, status: number, code: string, label = '') {
  assert.equal(res.status, status, `${label}: ${show(res)}`);
  assert.equal(res.body.error.code, code, `${label}: ${show(res)}`);
  assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'), label);
}

/** 400 validation_failed whose details name `field`. */
function assertRefused(res: Response, fieldName: string, label = '') {
  assertError(res, 400, 'validation_failed', label);
  const named = res.body.error.details.map((d: { field: string }) => d.field);
  assert.ok(named.includes(fieldName), `${label}: details should name ${fieldName}, got ${JSON.stringify(res.body.error.details)}`);
  for (const d of res.body.error.details) assert.equal(typeof d.message, 'string', label);
}

/**
 * Checks that `send` is refused naming `fieldName` and changes nothing: the evidence as GET shows
 * it (status, modifiedOn, attachments), the attachment rows, the pending-upload journal, the blob
 * store, and no temporary file left.
 */
async function assertRefusedCleanly(h: Harness, evidenceId: string, send: () => Promise<Response>, fieldName: string, label: string) {
  const before = await h.state(evidenceId);
  const res = await send();
  assertRefused(res, fieldName, label);
  assert.deepEqual(await h.state(evidenceId), before, `${label}: nothing recorded, no blob left`);
}

/** The parts of an upload and what GET must list for each file (sorted by name). */
function expectedAttachment(displayName: string, type: string, extra: Record<string, unknown>) {
  return { displayName, type, addedOn: NOW, ...extra };
}

const byName = <T extends { displayName: string }>(list: T[]): T[] => [...list].sort((a, b) => (a.displayName < b.displayName ? -1 : 1));

/** A 100 MiB + `extra` bytes pair of files. */
function largePair(extra: number): Part[] {
  const half = MAX_TOTAL_BYTES / 2;
  return [file('big-1.log', Buffer.alloc(half, 'x')), file('big-2.log', Buffer.alloc(half + extra, 'y'))];
}

// ====================================================================================================
// Local disk, every database engine
// ====================================================================================================

for (const dialect of dialects) {
  describe(`POST /v1/evidence/{evidenceId}/attachments (${dialect}, local disk)`, () => {
    let server: TestServer;
    let blobDir: string;
    let h: Harness;
    let clock = NOW;

    before(async () => {
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-upload-blobs-'));
      server = await startServer({ dialect, env: { ...env, BLOB_DIR: blobDir }, now: () => clock });
      assert.equal(server.config.blobDir, path.resolve(blobDir));
      h = await makeHarness(server, localDiskBlobs(blobDir));
    });
    after(async () => {
      await server?.close();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });
    afterEach(assertNoUncaughtException);

    /** Asserts the recorded files of `evidenceId` are the given files, byte for byte, under one upload's keys. */
    async function assertStored(evidenceId: string, files: Array<{ filename: string; content: Buffer; type: string }>) {
      const rows = await h.rows(evidenceId);
      assert.equal(rows.length, files.length, 'one attachment row per file');
      const uploadId = rows[0].uploadId;
      assert.ok(uploadId, 'the rows name their upload');
      files.forEach((f, index) => {
        const row = rows.find((r) => r.blobKey === `uploads/${h.client.organizationId}/${uploadId}/${index}`);
        assert.ok(row, `file ${index} (${f.filename}) is under uploads/<org>/<upload>/${index}: ${JSON.stringify(rows)}`);
        assert.equal(row.displayName, f.filename);
        assert.equal(row.type, f.type);
        assert.equal(row.uploadId, uploadId, 'one upload ID for every file of the request');
        assert.equal(row.sizeBytes, f.content.length);
        assert.equal(row.sha256, sha256(f.content));
        const onDisk = fs.readFileSync(path.join(blobDir, ...row.blobKey.split('/')));
        assert.ok(onDisk.equals(f.content), `${f.filename}: the stored bytes are exactly the uploaded ones`);
      });
      return rows;
    }

    // ---------------------------------------------------------------- success

    test('two files, evidenceDate and note → 201; GET lists both with type, note, date and quarter; bytes stored exactly', async () => {
      const evidenceId = await h.evidence();
      const txt = Buffer.from('access review export\nline 2\n');
      const csv = payload(300 * 1024, 1); // spans several chunks
      const before = blobFiles(blobDir);
      const res = await h.post(evidenceId, [date(IN_Q1), file('review.txt', txt), file('users.csv', csv), note('Quarterly access review')]);
      assertCreated(res, evidenceId, NOW);
      assert.equal(res.headers.get('idempotent-replayed'), null, 'an original response is not marked as a replay');

      const got = await h.get(evidenceId);
      assert.equal(got.status, 200);
      assert.equal(got.body.data.status, 'uploaded', 'no approvers → uploaded');
      assert.equal(got.body.data.modifiedOn, res.body.data.modifiedOn);
      const common = { note: 'Quarterly access review', evidenceDate: IN_Q1, ...Q1_2026, isCurrentPeriod: true };
      assert.deepEqual(byName(got.body.data.attachments), [
        expectedAttachment('review.txt', 'text', common),
        expectedAttachment('users.csv', 'csv', common),
      ]);
      for (const a of got.body.data.attachments) assert.ok(!('url' in a), 'a hosted file never has a url');

      const rows = await assertStored(evidenceId, [
        { filename: 'review.txt', content: txt, type: 'text' },
        { filename: 'users.csv', content: csv, type: 'csv' },
      ]);
      // Exactly these two blobs were added; nothing temporary is left.
      const added = blobFiles(blobDir).filter((f) => !before.includes(f));
      assert.deepEqual(added, rows.map((r) => r.blobKey).sort());
      assert.deepEqual(walkDir(blobDir).tmp, []);
      assert.equal(await h.pendingCount(), 0, 'the journal entry is removed with the recording');
    });

    test('evidence with approvers becomes pending_approval', async () => {
      const evidenceId = await h.evidence({ approvers: true, status: 'needs_revision' });
      const res = await h.post(evidenceId, [file('a.txt', 'x'), date(IN_Q1)]);
      assertCreated(res, evidenceId, NOW);
      const got = await h.get(evidenceId);
      assert.equal(got.body.data.status, 'pending_approval');
      assert.equal(got.body.data.modifiedOn, NOW);
    });

    test('evidence without approvers in another status (needs_revision) becomes uploaded', async () => {
      const evidenceId = await h.evidence({ status: 'needs_revision' });
      assertCreated(await h.post(evidenceId, [file('a.txt', 'x'), date(IN_Q1)]), evidenceId, NOW);
      assert.equal((await h.get(evidenceId)).body.data.status, 'uploaded');
    });

    const periodCases: Array<[recurrence: string | null, evidenceDate: number, expected: Record<string, unknown>]> = [
      ['quarterly', IN_Q4_2025, { ...Q4_2025, isCurrentPeriod: false }],
      ['monthly', IN_Q1, { periodStart: Date.UTC(2026, 0, 1), periodEnd: Date.UTC(2026, 1, 1) - 1, isCurrentPeriod: false }],
      ['monthly', Date.UTC(2026, 1, 1), { periodStart: Date.UTC(2026, 1, 1), periodEnd: Date.UTC(2026, 2, 1) - 1, isCurrentPeriod: true }],
      ['semi_annually', IN_Q1, { periodStart: Date.UTC(2026, 0, 1), periodEnd: Date.UTC(2026, 6, 1) - 1, isCurrentPeriod: true }],
      ['semi_annually', Date.UTC(2025, 11, 31, 23, 59, 59, 999), { periodStart: Date.UTC(2025, 6, 1), periodEnd: Date.UTC(2026, 0, 1) - 1, isCurrentPeriod: false }],
      ['yearly', IN_Q4_2025, { periodStart: Date.UTC(2025, 0, 1), periodEnd: Date.UTC(2026, 0, 1) - 1, isCurrentPeriod: false }],
      ['yearly', IN_Q1, { periodStart: Date.UTC(2026, 0, 1), periodEnd: Date.UTC(2027, 0, 1) - 1, isCurrentPeriod: true }],
      ['one_time', IN_Q1, { isCurrentPeriod: false }],
      [null, IN_Q1, { isCurrentPeriod: false }],
    ];
    for (const [recurrence, evidenceDate, expected] of periodCases) {
      test(`period follows the recurrence: ${recurrence ?? 'no recurrence'}, evidenceDate ${new Date(evidenceDate).toISOString()}`, async () => {
        const evidenceId = await h.evidence({ recurrence });
        assertCreated(await h.post(evidenceId, [file('p.md', '# p'), date(evidenceDate)]), evidenceId, NOW);
        const got = await h.get(evidenceId);
        assert.deepEqual(got.body.data.attachments, [expectedAttachment('p.md', 'markdown', { evidenceDate, ...expected })]);
        if (!('periodStart' in expected)) {
          assert.ok(!('periodStart' in got.body.data.attachments[0]) && !('periodEnd' in got.body.data.attachments[0]), 'no period keys');
        }
      });
    }

    test('the plural path /v1/evidences/{id}/attachments uploads the same way', async () => {
      const evidenceId = await h.evidence({ approvers: true });
      const content = Buffer.from('{"ok":true}');
      const res = await h.post(evidenceId, [file('result.json', content), date(IN_Q1), note('via plural')], { plural: true });
      assertCreated(res, evidenceId, NOW);
      const got = await h.get(evidenceId);
      assert.equal(got.body.data.status, 'pending_approval');
      assert.deepEqual(got.body.data.attachments, [
        expectedAttachment('result.json', 'json', { note: 'via plural', evidenceDate: IN_Q1, ...Q1_2026, isCurrentPeriod: true }),
      ]);
      await assertStored(evidenceId, [{ filename: 'result.json', content, type: 'json' }]);
    });

    test('five files (the maximum) of several families; extensions are case-insensitive', async () => {
      const evidenceId = await h.evidence();
      const files = [
        { filename: 'policy.DOCX', content: payload(2048, 2), type: 'word' },
        { filename: 'screenshot.png', content: payload(4096, 3), type: 'image' },
        { filename: 'config.YAML', content: Buffer.from('a: 1\n'), type: 'yaml' },
        { filename: 'bundle.zip', content: Buffer.concat([ZIP_SIGNATURE, payload(100, 4)]), type: 'archive' },
        { filename: 'mail.eml', content: Buffer.from('Subject: hi\r\n\r\nbody'), type: 'email' },
      ];
      const res = await h.post(evidenceId, [...files.map((f) => file(f.filename, f.content)), date(IN_Q1)]);
      assertCreated(res, evidenceId, NOW);
      const got = await h.get(evidenceId);
      assert.deepEqual(
        byName(got.body.data.attachments).map((a: any) => [a.displayName, a.type]),
        byName(files.map((f) => ({ displayName: f.filename, type: f.type }))).map((a) => [a.displayName, a.type]),
      );
      await assertStored(evidenceId, files);
    });

    test('.numbers and .pages starting with the zip signature are accepted (type iwork)', async () => {
      const evidenceId = await h.evidence();
      const numbers = Buffer.concat([ZIP_SIGNATURE, payload(70_000, 5)]);
      const pages = Buffer.concat([ZIP_SIGNATURE]); // just the signature
      assertCreated(await h.post(evidenceId, [file('sheet.numbers', numbers), file('doc.pages', pages), date(IN_Q1)]), evidenceId, NOW);
      await assertStored(evidenceId, [
        { filename: 'sheet.numbers', content: numbers, type: 'iwork' },
        { filename: 'doc.pages', content: pages, type: 'iwork' },
      ]);
    });

    test('evidenceDate: now, and up to 60 s ahead of the server clock, are accepted', async () => {
      for (const value of [NOW, NOW + 60 * SECOND, 0]) {
        const evidenceId = await h.evidence();
        assertCreated(await h.post(evidenceId, [file('a.txt', 'a'), date(value)]), evidenceId, NOW, String(value));
        assert.equal((await h.get(evidenceId)).body.data.attachments[0].evidenceDate, value);
      }
    });

    test('a note of exactly 2000 characters (multi-byte) is stored whole; an empty note is no note', async () => {
      const long = 'é'.repeat(2000);
      const evidenceId = await h.evidence();
      assertCreated(await h.post(evidenceId, [file('a.txt', 'a'), date(IN_Q1), note(long)]), evidenceId, NOW);
      assert.equal((await h.get(evidenceId)).body.data.attachments[0].note, long);
      const other = await h.evidence();
      assertCreated(await h.post(other, [file('a.txt', 'a'), date(IN_Q1), note('')]), other, NOW);
      assert.ok(!('note' in (await h.get(other)).body.data.attachments[0]));
    });

    test('a hand-made body (date after the files, paths in the file names) is accepted; the display name is the last segment, the blob stays in the store', async () => {
      const evidenceId = await h.evidence();
      const content = Buffer.from('<a/>');
      const other = Buffer.from('outside?');
      const boundary = 'hand-made-boundary-1';
      const body = rawBody([file('C:\\Users\\me\\export.xml', content), file('../../../outside.txt', other), date(IN_Q1)], boundary);
      const before = blobFiles(blobDir);
      assertCreated(await h.post(evidenceId, { raw: body, contentType: multipartType(boundary) }), evidenceId, NOW);
      assert.deepEqual(byName((await h.get(evidenceId)).body.data.attachments).map((a: any) => a.displayName), ['export.xml', 'outside.txt']);
      await assertStored(evidenceId, [
        { filename: 'export.xml', content, type: 'xml' },
        { filename: 'outside.txt', content: other, type: 'text' },
      ]);
      const rows = await h.rows(evidenceId);
      assert.deepEqual(blobFiles(blobDir).filter((f) => !before.includes(f)), rows.map((r) => r.blobKey).sort(), 'only the two blobs were added');
      for (const up of ['..', '../..', '../../..']) assert.equal(fs.existsSync(path.resolve(blobDir, up, 'outside.txt')), false, `nothing written to ${up}/outside.txt`);
    });

    test('files totalling exactly 100 MiB are accepted', async () => {
      const evidenceId = await h.evidence();
      const parts = largePair(0);
      assertCreated(await h.post(evidenceId, [...parts, date(IN_Q1)]), evidenceId, NOW);
      const rows = await h.rows(evidenceId);
      assert.deepEqual(rows.map((r) => r.sizeBytes), [MAX_TOTAL_BYTES / 2, MAX_TOTAL_BYTES / 2]);
      for (const r of rows) assert.equal(fs.statSync(path.join(blobDir, ...r.blobKey.split('/'))).size, MAX_TOTAL_BYTES / 2);
      assert.deepEqual(walkDir(blobDir).tmp, []);
    });

    test('a second upload adds its files next to the first upload\u2019s', async () => {
      const evidenceId = await h.evidence();
      assertCreated(await h.post(evidenceId, [file('one.txt', '1'), date(IN_Q4_2025)]), evidenceId, NOW);
      clock = NOW + 5 * SECOND;
      try {
        assertCreated(await h.post(evidenceId, [file('two.txt', '2'), date(IN_Q1)]), evidenceId, NOW + 5 * SECOND);
      } finally {
        clock = NOW;
      }
      const got = await h.get(evidenceId);
      assert.equal(got.body.data.modifiedOn, NOW + 5 * SECOND);
      assert.deepEqual(got.body.data.attachments.map((a: any) => a.displayName), ['two.txt', 'one.txt'], 'newest evidence date first');
      const rows = await h.rows(evidenceId);
      assert.equal(new Set(rows.map((r) => r.uploadId)).size, 2, 'each upload has its own ID and blob prefix');
    });

    // ---------------------------------------------------------------- refusals

    describe('refusals: 400 validation_failed naming the field; nothing recorded, no blob left', () => {
      let target: string;
      before(async () => {
        // An evidence record whose status an upload would change, with one attachment already listed.
        target = await h.evidence({ status: 'needs_revision', approvers: true });
        await artifactFixtures(server.database.db, h.client.organizationId).attachment(target, {
          displayName: 'earlier.txt', type: 'text', hosted: true, evidenceDate: IN_Q4_2025, addedOn: Date.UTC(2025, 10, 4),
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
        ['.pages not starting with the zip signature, after a stored file', () => [good(), file('doc.pages', Buffer.from('PK\x05\x06rest')), date(IN_Q1)], 'files'],
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

      test('files totalling 100 MiB + 1 byte', async () => {
        await assertRefusedCleanly(h, target, () => h.post(target, [date(IN_Q1), ...largePair(1)]), 'files', '100 MiB + 1');
      });

      const boundary = 'refusal-boundary-7';
      const rawCases: Array<[label: string, body: () => Body, fieldName: string]> = [
        ['a body without the closing boundary', () => ({ raw: rawBody([date(IN_Q1), file('a.txt', 'complete file')], boundary, { close: false }), contentType: multipartType(boundary) }), 'body'],
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
        ['a file part without a file name', () => ({ raw: rawBody([date(IN_Q1), file('', 'data')], boundary), contentType: multipartType(boundary) }), 'files'],
        ['multipart/form-data without a boundary', () => ({ raw: rawBody([date(IN_Q1), file('a.txt', 'a')], boundary), contentType: 'multipart/form-data' }), 'Content-Type'],
        ['a JSON body', () => ({ raw: JSON.stringify({ evidenceDate: IN_Q1, files: ['a.txt'] }), contentType: 'application/json' }), 'Content-Type'],
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
        assert.deepEqual(got.body.data.attachments.map((a: any) => a.displayName), ['earlier.txt']);
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
        const otherEvidence = await artifactFixtures(server.database.db, other.organizationId).evidence({ name: 'Theirs', status: 'not_uploaded' });
        const before = await api(server.url, `/v1/evidence/${otherEvidence}?fields=attachments`, otherToken);
        const blobsBefore = await h.blobKeys();
        assertError(await h.post(otherEvidence, [file('a.txt', 'a'), date(IN_Q1)]), 404, 'not_found');
        assert.deepEqual((await api(server.url, `/v1/evidence/${otherEvidence}?fields=attachments`, otherToken)).body.data, before.body.data);
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

    // ---------------------------------------------------------------- idempotency

    describe('idempotency', () => {
      test('same key, same parts → 201 replay with Idempotent-Replayed: true, same data, one set of attachments', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const parts = [date(IN_Q1), file('a.txt', 'alpha'), file('b.csv', 'x,y\n'), note('n')];
        const first = await h.post(evidenceId, parts, { key });
        assertCreated(first, evidenceId, NOW);
        const blobsAfterFirst = await h.blobKeys();
        clock = NOW + 7 * SECOND; // the replay returns the stored modifiedOn, not a new one
        try {
          const second = await h.post(evidenceId, parts, { key });
          assertCreated(second, evidenceId, NOW, 'replay');
          assert.equal(second.headers.get('idempotent-replayed'), 'true');
          assert.notEqual(second.body.meta.requestId, first.body.meta.requestId, 'each response has its own request ID');
        } finally {
          clock = NOW;
        }
        const got = await h.get(evidenceId);
        assert.equal(got.body.data.attachments.length, 2);
        assert.equal(got.body.data.modifiedOn, NOW);
        assert.equal((await h.rows(evidenceId)).length, 2);
        assert.deepEqual(await h.blobKeys(), blobsAfterFirst, 'a replay stores nothing');
        assert.deepEqual(walkDir(blobDir).tmp, []);
      });

      test('the same parts under a different boundary replay (hand-made bodies; and FormData after them)', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const parts = [date(IN_Q1), file('a.txt', payload(100_000, 11)), note('same')];
        assertCreated(await h.post(evidenceId, { raw: rawBody(parts, 'first-boundary'), contentType: multipartType('first-boundary') }, { key }), evidenceId, NOW);
        const blobs = await h.blobKeys();
        const replay = await h.post(evidenceId, { raw: rawBody(parts, 'XyZ-other-boundary-0123456789'), contentType: multipartType('XyZ-other-boundary-0123456789') }, { key });
        assertCreated(replay, evidenceId, NOW, 'different boundary');
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        const viaForm = await h.post(evidenceId, parts, { key });
        assertCreated(viaForm, evidenceId, NOW, 'FormData');
        assert.equal(viaForm.headers.get('idempotent-replayed'), 'true');
        assert.equal((await h.rows(evidenceId)).length, 1);
        assert.deepEqual(await h.blobKeys(), blobs);
      });

      test('the singular and plural paths share a key: a retry on the other spelling replays', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const parts = [date(IN_Q1), file('a.txt', 'alias')];
        assertCreated(await h.post(evidenceId, parts, { key, plural: true }), evidenceId, NOW);
        const replay = await h.post(evidenceId, parts, { key });
        assertCreated(replay, evidenceId, NOW);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.equal((await h.rows(evidenceId)).length, 1);
      });

      test('same key with a different request → 409 idempotency_key_reused, nothing more recorded or stored', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const parts = [date(IN_Q1), file('a.txt', 'original content'), note('n')];
        assertCreated(await h.post(evidenceId, parts, { key }), evidenceId, NOW);
        const state = await h.state(evidenceId);
        const otherEvidence = await h.evidence();
        const variants: Array<[string, () => Promise<Response>]> = [
          ['different file content', () => h.post(evidenceId, [date(IN_Q1), file('a.txt', 'changed content!'), note('n')], { key })],
          ['different file name', () => h.post(evidenceId, [date(IN_Q1), file('b.txt', 'original content'), note('n')], { key })],
          ['different evidenceDate', () => h.post(evidenceId, [date(IN_Q1 + 1), file('a.txt', 'original content'), note('n')], { key })],
          ['different note', () => h.post(evidenceId, [date(IN_Q1), file('a.txt', 'original content'), note('m')], { key })],
          ['no note', () => h.post(evidenceId, [date(IN_Q1), file('a.txt', 'original content')], { key })],
          ['an extra file', () => h.post(evidenceId, [...parts, file('c.txt', 'c')], { key })],
          ['another evidence record', () => h.post(otherEvidence, parts, { key })],
        ];
        for (const [label, send] of variants) {
          assertError(await send(), 409, 'idempotency_key_reused', label);
          assert.deepEqual(await h.state(evidenceId), state, label);
        }
        assert.equal((await h.get(otherEvidence)).body.data.status, 'not_uploaded');
        // The original request still replays.
        const replay = await h.post(evidenceId, parts, { key });
        assertCreated(replay, evidenceId, NOW);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      });

      test('a key used by another write (POST /v1/vulnerabilities) is not reused by an upload, nor the reverse', async () => {
        const evidenceId = await h.evidence();
        const vulnKey = newKey();
        const created = await api(server.url, '/v1/vulnerabilities', h.token, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': vulnKey },
          body: JSON.stringify({ vulnerabilityId: 'VUL-0001', title: 'Shared key', severity: 'low', status: 'open' }),
        });
        assert.equal(created.status, 201, show(created));
        const before = await h.state(evidenceId);
        assertError(await h.post(evidenceId, [date(IN_Q1), file('a.txt', 'a')], { key: vulnKey }), 409, 'idempotency_key_reused');
        assert.deepEqual(await h.state(evidenceId), before);

        const uploadKey = newKey();
        assertCreated(await h.post(evidenceId, [date(IN_Q1), file('a.txt', 'a')], { key: uploadKey }), evidenceId, NOW);
        const vuln = await api(server.url, '/v1/vulnerabilities', h.token, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': uploadKey },
          body: JSON.stringify({ vulnerabilityId: 'VUL-0002', title: 'Shared key', severity: 'low', status: 'open' }),
        });
        assertError(vuln, 409, 'idempotency_key_reused', 'vulnerability after upload');
      });

      test('a refused upload releases its key: the corrected request with the same key → 201 (not a replay)', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const refusals: Array<[Part[], string]> = [
          [[date(IN_Q1), file('a.txt', 'a'), file('b.pdf', 'b')], 'files'],
          [[date(NOW + HOUR), file('a.txt', 'a')], 'evidenceDate'],
          [[date(IN_Q1), file('a.txt', 'a'), field('foo', '1')], 'foo'],
        ];
        for (const [parts, fieldName] of refusals) {
          await assertRefusedCleanly(h, evidenceId, () => h.post(evidenceId, parts, { key }), fieldName, `refused with key ${key}`);
        }
        const ok = await h.post(evidenceId, [date(IN_Q1), file('a.txt', 'a')], { key });
        assertCreated(ok, evidenceId, NOW);
        assert.equal(ok.headers.get('idempotent-replayed'), null);
        assert.equal((await h.rows(evidenceId)).length, 1);
        assert.equal((await h.get(evidenceId)).body.data.status, 'uploaded');
      });

      test('a 404 (unknown evidence) does not consume the key', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        assertError(await h.post(randomUUID(), [date(IN_Q1), file('a.txt', 'a')], { key }), 404, 'not_found');
        const ok = await h.post(evidenceId, [date(IN_Q1), file('a.txt', 'a')], { key });
        assertCreated(ok, evidenceId, NOW);
        assert.equal(ok.headers.get('idempotent-replayed'), null);
      });

      test('20 concurrent identical uploads with one key → one attachment set, one set of blobs; the rest replay or are in progress', async () => {
        const evidenceId = await h.evidence();
        const key = newKey();
        const files = [
          { filename: 'c1.log', content: payload(512 * 1024, 21), type: 'text' },
          { filename: 'c2.json', content: Buffer.from('{"concurrent":true}'), type: 'json' },
        ];
        const parts = [date(IN_Q1), ...files.map((f) => file(f.filename, f.content)), note('race')];
        const blobsBefore = await h.blobKeys();
        const responses = await Promise.all(Array.from({ length: 20 }, () => h.post(evidenceId, parts, { key })));

        const originals = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
        const replays = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === 'true');
        const inProgress = responses.filter((r) => r.status === 409 && r.body?.error?.code === 'idempotency_request_in_progress');
        assert.equal(originals.length + replays.length + inProgress.length, 20, responses.map(show).join('\n'));
        assert.equal(originals.length, 1, 'exactly one request did the write');
        for (const r of [...originals, ...replays]) assertCreated(r, evidenceId, NOW);
        for (const r of inProgress) assert.equal(r.body.meta.requestId, r.headers.get('x-request-id'));

        const got = await h.get(evidenceId);
        assert.equal(got.body.data.attachments.length, 2, 'one attachment set');
        assert.equal(got.body.data.status, 'uploaded');
        const rows = await assertStored(evidenceId, files);
        const added = (await h.blobKeys()).filter((k) => !blobsBefore.includes(k));
        assert.deepEqual(added, rows.map((r) => r.blobKey).sort(), 'the blobs of exactly one upload');
        assert.deepEqual(walkDir(blobDir).tmp, []);
        assert.equal(await h.pendingCount(), 0);

        // Afterwards every retry replays.
        const late = await h.post(evidenceId, parts, { key });
        assertCreated(late, evidenceId, NOW);
        assert.equal(late.headers.get('idempotent-replayed'), 'true');
      });
    });
  });

  // ==================================================================================================
  // Clean-up of abandoned uploads
  // ==================================================================================================

  describe(`clean-up of abandoned uploads (${dialect}, local disk)`, () => {
    let server: TestServer;
    let blobDir: string;
    let h: Harness;

    before(async () => {
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-cleanup-blobs-'));
      server = await startServer({ dialect, env: { ...env, BLOB_DIR: blobDir }, now: () => NOW });
      h = await makeHarness(server, localDiskBlobs(blobDir));
    });
    after(async () => {
      await server?.close();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });
    afterEach(assertNoUncaughtException);

    test('expired pending uploads lose their blobs and row; live ones and completed uploads are kept', async () => {
      const store = new LocalDiskBlobStore(blobDir);
      await assertCleanup(h, store, NOW, () => blobFiles(blobDir));
      // Temporary files: old ones are swept, fresh ones kept.
      const tmpDir = path.join(blobDir, '.tmp');
      fs.mkdirSync(tmpDir, { recursive: true });
      fs.writeFileSync(path.join(tmpDir, 'old-partial'), 'x');
      fs.writeFileSync(path.join(tmpDir, 'fresh-partial'), 'y');
      const old = new Date(Date.now() - 2 * HOUR);
      fs.utimesSync(path.join(tmpDir, 'old-partial'), old, old);
      const result = await runCleanup({ db: server.database.db, blobs: store, now: () => NOW, temporaryAgeMs: HOUR });
      assert.equal(result.temporaryFiles, 1);
      assert.deepEqual(walkDir(blobDir).tmp, ['.tmp/fresh-partial']);
    });
  });
}

/**
 * Sets up a completed upload (through HTTP), an expired pending upload with two blobs and a live
 * pending upload with one blob, runs the clean-up at `now` and checks what it removed.
 */
async function assertCleanup(h: Harness, store: BlobStore, now: number, listAll: () => Promise<string[]> | string[]) {
  const db = h.server.database.db;
  const org = h.client.organizationId;
  const evidenceId = await h.evidence();
  const kept = Buffer.from('completed upload');
  assertCreated(await h.post(evidenceId, [date(IN_Q1), file('kept.txt', kept)]), evidenceId, now);
  const completedKeys = (await h.rows(evidenceId)).map((r) => r.blobKey);
  const allBefore = await listAll();
  const attachmentsBefore = (await h.get(evidenceId)).body.data.attachments;

  const expiredId = randomUUID();
  const liveId = randomUUID();
  const expiredPrefix = `uploads/${org}/${expiredId}/`;
  const livePrefix = `uploads/${org}/${liveId}/`;
  await insertPendingUpload(db.kysely, { id: expiredId, organizationId: org, evidenceId, blobPrefix: expiredPrefix, createdAt: now - 10 * 60_000, expiresAt: now - 1 });
  await insertPendingUpload(db.kysely, { id: liveId, organizationId: org, evidenceId, blobPrefix: livePrefix, createdAt: now - 1000, expiresAt: now + 60_000 });
  for (const key of [`${expiredPrefix}0`, `${expiredPrefix}1`, `${livePrefix}0`]) {
    await store.put(key, Readable.from([Buffer.from(`orphan ${key}`)]), { maxBytes: 1024 });
  }
  assert.deepEqual(await collect(store.list(expiredPrefix)), [`${expiredPrefix}0`, `${expiredPrefix}1`]);

  const result = await runCleanup({ db, blobs: store, now: () => now, temporaryAgeMs: HOUR });
  assert.equal(result.abandonedUploads, 1);
  assert.equal(result.orphanBlobs, 2);

  assert.deepEqual(await collect(store.list(expiredPrefix)), [], 'the expired upload\u2019s blobs are gone');
  assert.equal(await blobExists(store, `${livePrefix}0`), true, 'a live upload\u2019s blobs are kept');
  for (const key of completedKeys) assert.equal(await blobExists(store, key), true, 'a completed upload\u2019s blobs are kept');
  assert.deepEqual((await listAll()).sort(), [...allBefore, `${livePrefix}0`].sort(), 'nothing else was removed or left');
  const pending = await db.kysely.selectFrom('pending_uploads').select('id').where('organization_id', '=', org).execute();
  assert.deepEqual(pending.map((p) => p.id), [liveId], 'the expired row is gone, the live one kept');
  assert.deepEqual((await h.get(evidenceId)).body.data.attachments, attachmentsBefore, 'recorded attachments are untouched');

  // Once the live upload's lease is over too, it goes the same way; a second run finds nothing.
  const later = await runCleanup({ db, blobs: store, now: () => now + 60_000, temporaryAgeMs: HOUR });
  assert.equal(later.abandonedUploads, 1);
  assert.equal(later.orphanBlobs, 1);
  assert.equal(await blobExists(store, `${livePrefix}0`), false);
  const again = await runCleanup({ db, blobs: store, now: () => now + 60_000, temporaryAgeMs: HOUR });
  assert.deepEqual([again.abandonedUploads, again.orphanBlobs], [0, 0]);
  for (const key of completedKeys) assert.equal(await blobExists(store, key), true);
}

// ====================================================================================================
// S3 (s3rver)
// ====================================================================================================

describe('POST /v1/evidence/{evidenceId}/attachments (sqlite, S3 store against s3rver)', () => {
  const bucket = 'cds-upload-test';
  let s3Dir: string;
  let blobDir: string;
  let s3: { port: number; stop: () => Promise<void> };
  let settings: S3Settings;
  let store: S3BlobStore;
  let sdk: S3Client;
  let server: TestServer;
  let h: Harness;

  before(async () => {
    s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-upload-s3rver-'));
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-upload-unused-'));
    s3 = await startS3rver(s3Dir, bucket);
    const endpoint = `http://127.0.0.1:${s3.port}`;
    settings = { bucket, endpoint, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true };
    store = new S3BlobStore(settings);
    sdk = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    server = await startServer({
      dialect: 'sqlite',
      now: () => NOW,
      env: {
        ...env,
        BLOB_DIR: blobDir,
        S3_BUCKET: bucket,
        S3_ENDPOINT: endpoint,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        S3_FORCE_PATH_STYLE: 'true',
      },
    });
    assert.equal(server.config.s3?.bucket, bucket);
    h = await makeHarness(server, {
      list: () => collect(store.list('uploads/')),
      read: async (key) => {
        const object = await sdk.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from(await object.Body!.transformToByteArray());
      },
      tmp: () => walkDir(blobDir).tmp,
    });
  });
  after(async () => {
    await server?.close();
    await store?.close();
    sdk?.destroy();
    await s3?.stop();
    for (const dir of [s3Dir, blobDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(assertNoUncaughtException);

  async function assertObjects(evidenceId: string, files: Array<{ filename: string; content: Buffer }>) {
    const rows = await h.rows(evidenceId);
    assert.equal(rows.length, files.length);
    const uploadId = rows[0].uploadId;
    for (const [index, f] of files.entries()) {
      const key = `uploads/${h.client.organizationId}/${uploadId}/${index}`;
      const row = rows.find((r) => r.blobKey === key);
      assert.ok(row, `${key} recorded`);
      assert.equal(row.displayName, f.filename);
      assert.equal(row.sha256, sha256(f.content));
      assert.ok((await h.readBlob(key)).equals(f.content), `${key}: the object holds exactly the uploaded bytes`);
    }
    return rows;
  }

  test('success: the files become objects under uploads/<org>/<upload>/<index>, byte for byte; the local blob dir stays unused', async () => {
    const evidenceId = await h.evidence({ approvers: true });
    const files = [
      { filename: 'small.txt', content: Buffer.from('small file') },
      { filename: 'multipart.log', content: payload(6 * MiB + 123, 31) }, // over 5 MiB: a multipart upload
    ];
    const before = await h.blobKeys();
    assertCreated(await h.post(evidenceId, [date(IN_Q1), ...files.map((f) => file(f.filename, f.content)), note('s3')]), evidenceId, NOW);
    const got = await h.get(evidenceId);
    assert.equal(got.body.data.status, 'pending_approval');
    assert.deepEqual(byName(got.body.data.attachments), [
      expectedAttachment('multipart.log', 'text', { note: 's3', evidenceDate: IN_Q1, ...Q1_2026, isCurrentPeriod: true }),
      expectedAttachment('small.txt', 'text', { note: 's3', evidenceDate: IN_Q1, ...Q1_2026, isCurrentPeriod: true }),
    ]);
    const rows = await assertObjects(evidenceId, files);
    assert.deepEqual((await h.blobKeys()).filter((k) => !before.includes(k)), rows.map((r) => r.blobKey).sort());
    assert.deepEqual(walkDir(blobDir).entries, [], 'nothing is written to BLOB_DIR when S3 is configured');
  });

  test('a refused file after a stored one leaves no object', async () => {
    const evidenceId = await h.evidence();
    await assertRefusedCleanly(h, evidenceId, () => h.post(evidenceId, [date(IN_Q1), file('ok.txt', payload(256 * 1024, 32)), file('bad.pdf', '%PDF')]), 'files', 's3 bad after good');
    await assertRefusedCleanly(h, evidenceId, () => h.post(evidenceId, [file('ok.txt', 'ok'), date(NOW + HOUR)]), 'evidenceDate', 's3 future date');
    await assertRefusedCleanly(h, evidenceId, () => h.post(evidenceId, [date(IN_Q1), ...Array.from({ length: 6 }, (_, i) => file(`f${i}.txt`, `s3 ${i}`))]), 'files', 's3 six files');
  });

  test('a cut-off body after a stored file leaves no object', async () => {
    const evidenceId = await h.evidence();
    const boundary = 's3-cut-boundary';
    const raw = Buffer.concat([
      rawBody([date(IN_Q1), file('first.txt', payload(64 * 1024, 33))], boundary, { close: false }),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="cut.txt"\r\n\r\npartial`),
    ]);
    await assertRefusedCleanly(h, evidenceId, () => h.post(evidenceId, { raw, contentType: multipartType(boundary) }), 'body', 's3 cut body');
  });

  test('files totalling 100 MiB + 1 byte → 400 files, no object', async () => {
    const evidenceId = await h.evidence();
    await assertRefusedCleanly(h, evidenceId, () => h.post(evidenceId, [date(IN_Q1), ...largePair(1)]), 'files', 's3 100 MiB + 1');
  });

  test('a replay (new boundary) stores no second set of objects', async () => {
    const evidenceId = await h.evidence();
    const key = newKey();
    const parts = [date(IN_Q1), file('r.txt', payload(10_000, 34))];
    assertCreated(await h.post(evidenceId, parts, { key }), evidenceId, NOW);
    const objects = await h.blobKeys();
    const replay = await h.post(evidenceId, { raw: rawBody(parts, 's3-replay-boundary'), contentType: multipartType('s3-replay-boundary') }, { key });
    assertCreated(replay, evidenceId, NOW);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assertError(await h.post(evidenceId, [date(IN_Q1), file('r.txt', 'different')], { key }), 409, 'idempotency_key_reused');
    assert.deepEqual(await h.blobKeys(), objects);
    assert.equal((await h.rows(evidenceId)).length, 1);
  });

  test('clean-up removes the objects of expired pending uploads only', async () => {
    await assertCleanup(h, store, NOW, () => collect(store.list('uploads/')));
  });
});

// ====================================================================================================
// The real server process (src/main.ts) survives refused and broken uploads
// ====================================================================================================

for (const dialect of dialects) {
  describe(`the server process keeps running after refused or broken uploads (${dialect})`, () => {
    let database: TestDatabase;
    let blobDir: string;
    let client: Client;
    let evidenceId: string;
    let server: ServerProcess | undefined;

    /** The running server, started again if an earlier case brought it down (that case has failed). */
    async function running(): Promise<ServerProcess> {
      if (server) {
        const answers = await fetch(`${server.url}/v1/evidence`).then(() => true, () => false);
        if (answers && server.child.exitCode === null && server.child.signalCode === null) return server;
        await server.kill(); // dead already (or dying): wait for the exit
      }
      server = await startServerProcess({ database, store: createTestStore('memory'), env: { BLOB_DIR: blobDir } });
      return server;
    }

    before(async () => {
      database = await createTestDatabase(dialect);
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-upload-process-blobs-'));
      client = await createOrgWithCredential({ db: database.db, region: 'us', now: Date.now }, { accessLevel: 'read_write' });
      evidenceId = await artifactFixtures(database.db, client.organizationId).evidence({ name: 'Process evidence', status: 'not_uploaded' });
    });
    after(async () => {
      await server?.stop();
      await database?.drop();
      if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
    });

    const boundary = 'process-boundary';
    const big = payload(8 * MiB, 40);
    const cases: Array<[label: string, body: () => Buffer, fieldName: string]> = [
      ['a large .pdf as the first part', () => rawBody([file('scan.pdf', big), date(Date.now() - 1000)], boundary), 'files'],
      ['a large file in a part named "file"', () => rawBody([file('a.txt', big, 'file'), date(Date.now() - 1000)], boundary), 'file'],
      ['a large .exe after a stored file', () => rawBody([date(Date.now() - 1000), file('ok.txt', 'fine'), file('tool.exe', big)], boundary), 'files'],
      [
        'a body ending inside a file part (no closing boundary)',
        () => rawBody([date(Date.now() - 1000), file('a.txt', 'complete file')], boundary, { close: false }),
        'body',
      ],
    ];
    for (const [label, body, fieldName] of cases) {
      test(`${label}: 400 naming ${fieldName}, the process stays up, no blob left`, async () => {
        const s = await running();
        const token = await getToken(s.url, client);
        const blobsBefore = blobFiles(blobDir);
        const res = await api(s.url, `/v1/evidence/${evidenceId}/attachments`, token, {
          method: 'POST',
          headers: { 'idempotency-key': newKey(), 'content-type': multipartType(boundary) },
          body: body(),
        });
        assertRefused(res, fieldName, label);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(s.child.exitCode, null, `the server process exited:\n${s.stderr().slice(-2000)}`);
        assert.equal(s.child.signalCode, null);
        const after = await api(s.url, `/v1/evidence/${evidenceId}?fields=attachments`, token);
        assert.equal(after.status, 200);
        assert.equal(after.body.data.status, 'not_uploaded');
        assert.deepEqual(blobFiles(blobDir), blobsBefore, 'no blob left');
        assert.deepEqual(walkDir(blobDir).tmp, []);
      });
    }

    test('afterwards a valid upload still works', async () => {
      const s = await running();
      const token = await getToken(s.url, client);
      const blobsBefore = blobFiles(blobDir);
      const res = await api(s.url, `/v1/evidence/${evidenceId}/attachments`, token, {
        method: 'POST',
        headers: { 'idempotency-key': newKey() },
        body: formOf([date(Date.now() - 1000), file('ok.txt', 'fine')]),
      });
      assert.equal(res.status, 201, show(res));
      const got = await api(s.url, `/v1/evidence/${evidenceId}?fields=attachments`, token);
      assert.deepEqual(got.body.data.attachments.map((a: { displayName: string }) => a.displayName), ['ok.txt']);
      const keys = (await database.db.kysely.selectFrom('attachments').select('blob_key').where('evidence_id', '=', evidenceId).execute()).map((r) => r.blob_key);
      assert.deepEqual(blobFiles(blobDir).filter((f) => !blobsBefore.includes(f)), keys, 'the recorded blob is on disk');
    });
  });
}
