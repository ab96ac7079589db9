import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { api, createOrgWithCredential, getToken, startServer, type Client, type TestServer } from './server.ts';
import { artifactFixtures } from './fixtures-artifacts.ts';
import { fixtures } from './fixtures.ts';
import { runCleanup } from '../../src/domain/maintenance/cleanup.ts';
import { MAX_TOTAL_BYTES } from '../../src/domain/evidence/upload.ts';
import { insertPendingUpload } from '../../src/storage/db/repositories/artifacts/uploads.ts';
import type { BlobStore } from '../../src/storage/blobs/store.ts';
import { blobExists } from './blobs.ts';
import type { DialectName } from '../../src/storage/db/connect.ts';

export const MiB = 1024 * 1024;
export const SECOND = 1000;
export const HOUR = 3600_000;
/** The servers' clock: 10 February 2026, noon UTC (first quarter of 2026). */
export const NOW = Date.UTC(2026, 1, 10, 12);
/** An evidence date in the same quarter as NOW (but a past month). */
export const IN_Q1 = Date.UTC(2026, 0, 20, 9, 30);
export const Q1_2026 = { periodStart: Date.UTC(2026, 0, 1), periodEnd: Date.UTC(2026, 3, 1) - 1 };
/** An evidence date in the previous quarter. */
export const IN_Q4_2025 = Date.UTC(2025, 10, 3, 8);
export const Q4_2025 = { periodStart: Date.UTC(2025, 9, 1), periodEnd: Date.UTC(2026, 0, 1) - 1 };
export const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

export const env = { RATE_LIMIT_MAX: '100000' };

/**
 * The servers of most tests run in this process: an exception no one catches (for example an
 * 'error' event without a listener) would bring a real server down. Record them, and fail the
 * test during which they happen.
 */
const uncaught: unknown[] = [];
process.on('uncaughtException', (err) => uncaught.push(err));
export async function assertNoUncaughtException() {
  await new Promise((resolve) => setTimeout(resolve, 25)); // let late stream events fire
  const seen = uncaught.splice(0);
  assert.deepEqual(seen.map(String), [], 'the server raised no uncaught exception (a real server process would have died)');
}

export type Response = Awaited<ReturnType<typeof api>>;

// ---- Multipart bodies ----

export type Part = { kind: 'file'; name: string; filename: string; content: Buffer } | { kind: 'field'; name: string; value: string };

export const bytes = (content: Buffer | string) => (typeof content === 'string' ? Buffer.from(content) : content);
export const file = (filename: string, content: Buffer | string, name = 'files'): Part => ({
  kind: 'file',
  name,
  filename,
  content: bytes(content),
});
export const field = (name: string, value: string): Part => ({ kind: 'field', name, value });
export const date = (value: number | string) => field('evidenceDate', String(value));
export const note = (value: string) => field('note', value);

/** A body fetch encodes itself (random boundary). */
export function formOf(parts: Part[]): FormData {
  const form = new FormData();
  for (const p of parts) {
    if (p.kind === 'file') form.append(p.name, new Blob([new Uint8Array(p.content)]), p.filename);
    else form.append(p.name, p.value);
  }
  return form;
}

/** A hand-made body with a chosen boundary; `close: false` leaves out the closing delimiter. */
export function rawBody(parts: Part[], boundary: string, { close = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if (p.kind === 'file') {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
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

export const multipartType = (boundary: string) => `multipart/form-data; boundary=${boundary}`;

/** What an upload sends: parts (as FormData), or a raw body with its content type. */
export type Body = Part[] | { raw: Buffer | string; contentType: string };

export const sha256 = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');
export const show = (res: Response) => `${res.status} ${JSON.stringify(res.body)}`;

let keySeq = 0;
export const newKey = () => `upload-${Date.now().toString(36)}-${++keySeq}`;

/** A deterministic, non-repeating-looking payload of `size` bytes. */
export function payload(size: number, seed: number): Buffer {
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

export interface DirState {
  /** every file and directory (directories marked `dir:`), `.tmp` and its contents left out */
  entries: string[];
  /** files inside `.tmp` */
  tmp: string[];
}

export function walkDir(dir: string): DirState {
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
export const blobFiles = (dir: string) => walkDir(dir).entries.filter((e) => !e.startsWith('dir:'));

/** How a harness sees the local-disk blob store under `blobDir`. */
export const localDiskBlobs = (blobDir: string) => ({
  list: async () => blobFiles(blobDir),
  read: async (key: string) => fs.readFileSync(path.join(blobDir, ...key.split('/'))),
  tmp: () => walkDir(blobDir).tmp,
});

export async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const key of iterable) out.push(key);
  return out.sort();
}

// ---- A test server with its own blob store and helpers ----

export interface Harness {
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
  rows(
    evidenceId: string,
  ): Promise<Array<{ displayName: string; type: string; blobKey: string; sizeBytes: number; sha256: string; uploadId: string }>>;
  pendingCount(): Promise<number>;
}

export async function makeHarness(
  server: TestServer,
  keys: { list(): Promise<string[]>; read(key: string): Promise<Buffer>; tmp(): string[] },
): Promise<Harness> {
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
export function assertCreated(res: Response, evidenceId: string, modifiedOn: number, label = '') {
  assert.equal(res.status, 201, `${label}: ${show(res)}`);
  assert.deepEqual(res.body.data, { evidenceId, modifiedOn }, label);
  assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'), label);
}

export function assertError(res: Response, status: number, code: string, label = '') {
  assert.equal(res.status, status, `${label}: ${show(res)}`);
  assert.equal(res.body.error.code, code, `${label}: ${show(res)}`);
  assert.equal(res.body.meta.requestId, res.headers.get('x-request-id'), label);
}

/** 400 validation_failed whose details name `field`. */
export function assertRefused(res: Response, fieldName: string, label = '') {
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
export async function assertRefusedCleanly(
  h: Harness,
  evidenceId: string,
  send: () => Promise<Response>,
  fieldName: string,
  label: string,
) {
  const before = await h.state(evidenceId);
  const res = await send();
  assertRefused(res, fieldName, label);
  assert.deepEqual(await h.state(evidenceId), before, `${label}: nothing recorded, no blob left`);
}

/** The parts of an upload and what GET must list for each file (sorted by name). */
export function expectedAttachment(displayName: string, type: string, extra: Record<string, unknown>) {
  return { displayName, type, addedOn: NOW, ...extra };
}

export const byName = <T extends { displayName: string }>(list: T[]): T[] =>
  [...list].sort((a, b) => (a.displayName < b.displayName ? -1 : 1));

/** A 100 MiB + `extra` bytes pair of files. */
export function largePair(extra: number): Part[] {
  const half = MAX_TOTAL_BYTES / 2;
  return [file('big-1.log', Buffer.alloc(half, 'x')), file('big-2.log', Buffer.alloc(half + extra, 'y'))];
}

// ---- A server on the local-disk blob store (one per engine and suite) ----

/** Starts a server whose blobs go to a fresh temporary directory, and its harness; `now` is the server's clock. */
export async function startLocalDiskUploads(dialect: DialectName, now: () => number, dirPrefix = 'cds-upload-blobs-') {
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), dirPrefix));
  const server = await startServer({ dialect, env: { ...env, BLOB_DIR: blobDir }, now });
  assert.equal(server.config.blobDir, path.resolve(blobDir));
  const h = await makeHarness(server, localDiskBlobs(blobDir));
  return { server, blobDir, h };
}

export async function stopLocalDiskUploads(server: TestServer | undefined, blobDir: string | undefined) {
  await server?.close();
  if (blobDir) fs.rmSync(blobDir, { recursive: true, force: true });
}

/** Asserts the recorded files of `evidenceId` are the given files, byte for byte, under one upload's keys. */
export async function assertStoredOnDisk(
  h: Harness,
  blobDir: string,
  evidenceId: string,
  files: Array<{ filename: string; content: Buffer; type: string }>,
) {
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

/**
 * Sets up a completed upload (through HTTP), an expired pending upload with two blobs and a live
 * pending upload with one blob, runs the clean-up at `now` and checks what it removed.
 */
export async function assertCleanup(h: Harness, store: BlobStore, now: number, listAll: () => Promise<string[]> | string[]) {
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
  await insertPendingUpload(db.kysely, {
    id: expiredId,
    organizationId: org,
    evidenceId,
    blobPrefix: expiredPrefix,
    createdAt: now - 10 * 60_000,
    expiresAt: now - 1,
  });
  await insertPendingUpload(db.kysely, {
    id: liveId,
    organizationId: org,
    evidenceId,
    blobPrefix: livePrefix,
    createdAt: now - 1000,
    expiresAt: now + 60_000,
  });
  for (const key of [`${expiredPrefix}0`, `${expiredPrefix}1`, `${livePrefix}0`]) {
    await store.put(key, Readable.from([Buffer.from(`orphan ${key}`)]), { maxBytes: 1024 });
  }
  assert.deepEqual(await collect(store.list(expiredPrefix)), [`${expiredPrefix}0`, `${expiredPrefix}1`]);

  const result = await runCleanup({ ctx: { db, blobs: store, now: () => now }, input: { temporaryAgeMs: HOUR } });
  assert.equal(result.abandonedUploads, 1);
  assert.equal(result.orphanBlobs, 2);

  assert.deepEqual(await collect(store.list(expiredPrefix)), [], 'the expired upload\u2019s blobs are gone');
  assert.equal(await blobExists(store, `${livePrefix}0`), true, 'a live upload\u2019s blobs are kept');
  for (const key of completedKeys) assert.equal(await blobExists(store, key), true, 'a completed upload\u2019s blobs are kept');
  assert.deepEqual((await listAll()).sort(), [...allBefore, `${livePrefix}0`].sort(), 'nothing else was removed or left');
  const pending = await db.kysely.selectFrom('pending_uploads').select('id').where('organization_id', '=', org).execute();
  assert.deepEqual(
    pending.map((p) => p.id),
    [liveId],
    'the expired row is gone, the live one kept',
  );
  assert.deepEqual((await h.get(evidenceId)).body.data.attachments, attachmentsBefore, 'recorded attachments are untouched');

  // Once the live upload's lease is over too, it goes the same way; a second run finds nothing.
  const later = await runCleanup({ ctx: { db, blobs: store, now: () => now + 60_000 }, input: { temporaryAgeMs: HOUR } });
  assert.equal(later.abandonedUploads, 1);
  assert.equal(later.orphanBlobs, 1);
  assert.equal(await blobExists(store, `${livePrefix}0`), false);
  const again = await runCleanup({ ctx: { db, blobs: store, now: () => now + 60_000 }, input: { temporaryAgeMs: HOUR } });
  assert.deepEqual([again.abandonedUploads, again.orphanBlobs], [0, 0]);
  for (const key of completedKeys) assert.equal(await blobExists(store, key), true);
}
