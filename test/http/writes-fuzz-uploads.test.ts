// Fuzzing the multipart upload POST /v1/evidence/{evidenceId}/attachments over HTTP, on every
// engine, against a real server and real databases. Whatever the body (broken or truncated
// multipart, odd boundaries and headers, wrong content types), the service answers (never hangs),
// never with a 5xx, refuses with the spec's error body (400 validation_failed), and a refused
// upload leaves nothing behind: no attachment row, no changed evidence, no blob file, no
// pending-upload journal entry and no idempotency record for its key. A 201 upload of a
// well-formed body stores one attachment (and one blob) per file part.
// FUZZ_RUNS sets the runs per property (default 150); the seed is random on every run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { dialects } from '../harness/engines.ts';
import type { TestServer } from '../harness/server.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { EVIDENCE_STATUSES } from '../../src/shared/vocabulary.ts';
import {
  RUNS,
  type Answer,
  send,
  show,
  assertRefusal,
  newKey,
  idempotencyRecord,
  codePointString,
  tally,
  startFuzzServer,
  stopFuzzServer,
  newWriterOrg,
} from '../harness/fuzz.ts';

const DAY = 86_400_000;

// ---------------------------------------------------------------------------------------------
// Multipart bodies

interface Part {
  name: string;
  /** undefined: a field part */
  filename?: string;
  /** write the filename as RFC 5987 `filename*=UTF-8''…` */
  star?: boolean;
  contentType?: string;
  body: Uint8Array | string;
}

type Mutation =
  | { kind: 'none' }
  | { kind: 'truncate'; at: number }
  | { kind: 'lf' }
  | { kind: 'noClose' }
  | { kind: 'splice'; at: number; bytes: Uint8Array }
  | { kind: 'random'; bytes: Uint8Array };

type HeaderKind =
  | 'match'
  | 'quoted'
  | 'upper'
  | 'noBoundary'
  | 'emptyBoundary'
  | 'otherBoundary'
  | 'mixed'
  | 'json'
  | 'text'
  | 'none'
  | 'garbage';

interface UploadCase {
  parts: Part[];
  boundary: string;
  header: HeaderKind;
  garbage: string;
  mutation: Mutation;
}

/** Percent-encodes every UTF-8 byte that is not unreserved (encodeURIComponent throws on lone surrogates). */
const pct = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

function serializeParts(parts: Part[], boundary: string, eol: string, close: boolean): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let disposition = `Content-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) disposition += p.star ? `; filename*=UTF-8''${pct(p.filename)}` : `; filename="${p.filename}"`;
    const head = `--${boundary}${eol}${disposition}${eol}${p.contentType ? `Content-Type: ${p.contentType}${eol}` : ''}${eol}`;
    chunks.push(
      Buffer.from(head, 'utf8'),
      typeof p.body === 'string' ? Buffer.from(p.body, 'utf8') : Buffer.from(p.body),
      Buffer.from(eol),
    );
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--${eol}`));
  return Buffer.concat(chunks);
}

function uploadBody(c: UploadCase): Buffer {
  const m = c.mutation;
  if (m.kind === 'random') return Buffer.from(m.bytes);
  const full = serializeParts(c.parts, c.boundary, m.kind === 'lf' ? '\n' : '\r\n', m.kind !== 'noClose');
  if (m.kind === 'truncate') return full.subarray(0, m.at % (full.length + 1));
  if (m.kind === 'splice') {
    const at = full.length === 0 ? 0 : m.at % full.length;
    return Buffer.concat([full.subarray(0, at), Buffer.from(m.bytes), full.subarray(at + m.bytes.length)]);
  }
  return full;
}

function uploadContentType(c: UploadCase): string | null {
  switch (c.header) {
    case 'match':
      return `multipart/form-data; boundary=${c.boundary}`;
    case 'quoted':
      return `multipart/form-data; boundary="${c.boundary}"`;
    case 'upper':
      return `MULTIPART/FORM-DATA; BOUNDARY=${c.boundary}`;
    case 'noBoundary':
      return 'multipart/form-data';
    case 'emptyBoundary':
      return 'multipart/form-data; boundary=';
    case 'otherBoundary':
      return `multipart/form-data; boundary=${c.garbage.replace(/[^A-Za-z0-9_-]/g, '') || 'other'}`;
    case 'mixed':
      return `multipart/mixed; boundary=${c.boundary}`;
    case 'json':
      return 'application/json';
    case 'text':
      return 'text/plain';
    case 'none':
      return null;
    case 'garbage':
      return `multipart/form-data; ${c.garbage}`;
  }
}

function describeUpload(c: UploadCase): string {
  const parts = c.parts.map((p) => ({
    name: p.name,
    filename:
      p.filename === undefined ? undefined : p.filename.length > 80 ? `${p.filename.slice(0, 80)}… (${p.filename.length})` : p.filename,
    star: p.star,
    contentType: p.contentType,
    body:
      typeof p.body === 'string'
        ? p.body.length > 80
          ? `${p.body.slice(0, 80)}… (${p.body.length})`
          : p.body
        : `<${p.body.length} bytes>`,
  }));
  const m = c.mutation;
  const mutation = m.kind === 'splice' || m.kind === 'random' ? { ...m, bytes: Buffer.from(m.bytes).toString('hex').slice(0, 80) } : m;
  return JSON.stringify({ header: uploadContentType(c), boundary: c.boundary, parts, mutation });
}

const T_PAST = Date.UTC(2025, 0, 15);
const EXTENSIONS = ['txt', 'md', 'png', 'json', 'csv', 'docx', 'numbers', 'pages', 'pdf', 'exe', 'TXT', 'Png', 'tar.gz', ''];
const validFilename = fc
  .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), fc.constantFrom('txt', 'md', 'png', 'json', 'csv', 'log'))
  .map(([base, ext]) => `${base.replace(/["\r\n\\/]/g, '_')}.${ext}`);
const filename = fc.oneof(
  { weight: 4, arbitrary: validFilename },
  fc.tuple(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom(...EXTENSIONS)).map(([b, e]) => (e ? `${b}.${e}` : b)),
  fc.constantFrom(
    '',
    '.txt',
    'a.',
    '../../etc/passwd.txt',
    '..\\..\\windows\\win.ini.txt',
    '/absolute/report.md',
    'dir/',
    'C:\\Users\\x\\notes.txt',
    'a\u0000b.txt',
    '\u0001\u0002.txt',
    '   .txt',
    'ünïcødé-文件.txt',
    '😀.png',
    '\u202etxt.exe',
    'a"b.txt',
    'line\r\nbreak.txt',
    `${'a'.repeat(251)}.txt`,
    `${'a'.repeat(252)}.txt`,
    `${'😀'.repeat(251)}.txt`,
  ),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.integer({ min: 200, max: 5000 }).map((n) => `${'x'.repeat(n)}.txt`),
);
const ZIP = Uint8Array.from([0x50, 0x4b, 0x03, 0x04]);
const fileBytes = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 2048 }) },
  fc.uint8Array({ maxLength: 64 }).map((b) => Uint8Array.from([...ZIP, ...b])),
  fc.constant(new Uint8Array(0)),
  fc.string({ unit: 'grapheme', maxLength: 200 }).map((s) => Uint8Array.from(Buffer.from(s, 'utf8'))),
  fc.integer({ min: 64 * 1024, max: 512 * 1024 }).map((n) => new Uint8Array(n).fill(0x61)),
);
const evidenceDate = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: T_PAST }).map(String) },
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1.0',
    '1.5',
    '1e12',
    '1E12',
    '0x10',
    ' 1700000000000 ',
    '1700000000000\n',
    '99999999999999999999',
    '9007199254740993',
    'NaN',
    'Infinity',
    'null',
    '１７００',
  ),
  fc.integer({ min: 1, max: 1000 }).map((d) => String(Date.now() + d * DAY)), // the future
  fc.string({ unit: 'binary', maxLength: 30 }),
);
const fieldName = fc.oneof(
  fc.constantFrom('files', 'file', 'files[]', 'Files', 'evidenceDate', 'note', '', 'evidencedate'),
  fc.string({ unit: 'binary', maxLength: 12 }),
);
const fileContentType = fc.option(
  fc.constantFrom(
    'application/octet-stream',
    'text/plain',
    'image/png',
    'application/zip',
    'application/x-msdownload',
    'multipart/mixed; boundary=inner',
  ),
  { nil: undefined },
);

const goodFilePart: fc.Arbitrary<Part> = fc
  .tuple(validFilename, fc.uint8Array({ minLength: 1, maxLength: 1024 }), fileContentType)
  .map(([fname, body, contentType]) => ({ name: 'files', filename: fname, contentType, body }));
const filePart: fc.Arbitrary<Part> = fc
  .record({
    name: fc.oneof({ weight: 4, arbitrary: fc.constant('files') }, fieldName),
    filename,
    star: fc.boolean(),
    contentType: fileContentType,
    body: fileBytes,
  })
  .map((p) => ({ ...p }));
const datePart: fc.Arbitrary<Part> = evidenceDate.map((body) => ({ name: 'evidenceDate', body }));
const notePart: fc.Arbitrary<Part> = fc
  .oneof(
    fc.string({ unit: 'grapheme', maxLength: 100 }),
    fc.string({ unit: 'binary', maxLength: 100 }),
    codePointString(fc.constantFrom(2000, 2001, 8001)),
    fc.constantFrom('', '\u0000'),
  )
  .map((body) => ({ name: 'note', body }));
const otherField: fc.Arbitrary<Part> = fc
  .tuple(fieldName, fc.string({ unit: 'binary', maxLength: 50 }))
  .map(([name, body]) => ({ name, body }));
const anyPart = fc.oneof(
  { weight: 4, arbitrary: filePart },
  { weight: 3, arbitrary: datePart },
  { weight: 1, arbitrary: notePart },
  { weight: 1, arbitrary: otherField },
);

/** An empty list half the time, so that valid uploads stay common. */
const sometimes = <T>(arb: fc.Arbitrary<T[]>) => fc.oneof(fc.constant<T[]>([]), arb);
/** A valid upload (1-5 good files, a past date, maybe a note), then parts inserted and duplicated. */
const nearlyValidParts = fc
  .tuple(
    fc.array(goodFilePart, { minLength: 1, maxLength: 5 }),
    fc.integer({ min: 0, max: T_PAST }).map((d): Part => ({ name: 'evidenceDate', body: String(d) })),
    fc.option(notePart, { nil: undefined }),
    sometimes(fc.array(fc.tuple(fc.nat(), anyPart), { minLength: 1, maxLength: 2 })),
    sometimes(fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 2 })),
  )
  .map(([files, date, note, inserts, duplicates]) => {
    const parts: Part[] = [...files, date, ...(note ? [note] : [])];
    for (const [at, p] of inserts) parts.splice(at % (parts.length + 1), 0, p);
    for (const [from, to] of duplicates) parts.splice(to % (parts.length + 1), 0, parts[from % parts.length]);
    return parts;
  });
const partsArb = fc.oneof({ weight: 3, arbitrary: nearlyValidParts }, { weight: 2, arbitrary: fc.array(anyPart, { maxLength: 8 }) });

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 9, arbitrary: fc.constant<Mutation>({ kind: 'none' }) },
  { weight: 3, arbitrary: fc.nat().map((at): Mutation => ({ kind: 'truncate', at })) },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'lf' }) },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'noClose' }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 16 }))
      .map(([at, bytes]): Mutation => ({ kind: 'splice', at, bytes })),
  },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 4096 }).map((bytes): Mutation => ({ kind: 'random', bytes })) },
);
const headerKind = fc.oneof(
  { weight: 10, arbitrary: fc.constant<HeaderKind>('match') },
  {
    weight: 4,
    arbitrary: fc.constantFrom<HeaderKind>(
      'quoted',
      'upper',
      'noBoundary',
      'emptyBoundary',
      'otherBoundary',
      'mixed',
      'json',
      'text',
      'none',
      'garbage',
    ),
  },
);
const boundary = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,70}$/) },
  fc.constantFrom('-', '--', 'a', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'x'.repeat(200)),
);
const uploadCase: fc.Arbitrary<UploadCase> = fc.record({
  parts: partsArb,
  boundary,
  header: headerKind,
  garbage: fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[\x00-\x1f\x7f]/g, '')),
  mutation,
});

/** A quoted header parameter busboy reads as written: tab, printable ASCII but `"` and `\`, or non-ASCII. */
const quotable = (s: string) => /^[\t\x20\x21\x23-\x5b\x5d-\x7e\u{80}-\u{10ffff}]*$/u.test(s) && Buffer.byteLength(s) < 4000;

/**
 * A body every part of which a conforming parser reads as sent: not mutated, the boundary announced,
 * headers well-formed, and no part's content containing the delimiter. (Unreadable parts are the
 * subject of their own test below.)
 */
function wellFormed(c: UploadCase): boolean {
  if (c.mutation.kind !== 'none' || c.header !== 'match' || c.boundary.length > 70) return false;
  const delimiter = `\r\n--${c.boundary}`;
  return c.parts.every(
    (p) =>
      quotable(p.name) &&
      (p.filename === undefined || p.star || quotable(p.filename)) &&
      !Buffer.concat([Buffer.from('\r\n'), Buffer.from(p.body)]).includes(delimiter),
  );
}
/** Every file under `dir`, as paths relative to it (the `.tmp` directory included, by its files). */
function walkFiles(dir: string): string[] {
  const out: string[] = [];
  const visit = (rel: string) => {
    const abs = path.join(dir, rel);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) visit(r);
      else out.push(r);
    }
  };
  visit('');
  return out.sort();
}

/** Polls (up to `ms`) until `check` passes, then runs it once more so a failure reports itself. */
async function eventually(check: () => void | Promise<void>, ms = 500) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

for (const dialect of dialects) {
  describe(`write endpoints under fuzzed input (${dialect})`, () => {
    let server: TestServer;
    let blobDir: string;

    before(async () => {
      ({ server, blobDir } = await startFuzzServer(dialect));
    });
    after(() => stopFuzzServer(server, blobDir));

    const writerOrg = (name: string) => newWriterOrg(server, name);

    test('POST /v1/evidence/{id}/attachments: never 5xx or a hang; a refusal records nothing and leaves no blob', async (t) => {
      const { client, token } = await writerOrg('Fuzz upload');
      const seen = tally();
      const artifacts = artifactFixtures(server.database.db, client.organizationId);
      const k = server.database.db.kysely;
      const evidenceRow = (id: string) =>
        k.selectFrom('evidence').select(['status', 'modified_on']).where('id', '=', id).executeTakeFirstOrThrow();
      const attachmentRows = (id: string) => k.selectFrom('attachments').select(['blob_key']).where('evidence_id', '=', id).execute();
      const pendingRows = (id: string) => k.selectFrom('pending_uploads').select('id').where('evidence_id', '=', id).execute();

      await fc.assert(
        fc.asyncProperty(uploadCase, fc.constantFrom(...EVIDENCE_STATUSES), async (c, status) => {
          const evidenceId = await artifacts.evidence({ name: 'Fuzzed upload target', status });
          const evidenceBefore = await evidenceRow(evidenceId);
          const blobsBefore = walkFiles(blobDir);
          const key = newKey();
          const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'idempotency-key': key };
          const ct = uploadContentType(c);
          if (ct !== null) headers['content-type'] = ct;
          const label = describeUpload(c);
          let res: Answer;
          try {
            res = await send(`${server.url}/v1/evidence/${evidenceId}/attachments`, { method: 'POST', headers, body: uploadBody(c) });
          } catch (err) {
            throw new Error(`${(err as Error).message}: ${label}`);
          }
          seen.add(res);
          const full = `${label} → ${show(res)}`;
          const record = await idempotencyRecord(server, client, key);
          if (res.status === 201) {
            assert.deepEqual(Object.keys(res.body.data).sort(), ['evidenceId', 'modifiedOn'], full);
            assert.equal(res.body.data.evidenceId, evidenceId, full);
            const rows = await attachmentRows(evidenceId);
            assert.ok(rows.length >= 1 && rows.length <= 5, `1-5 attachments: ${full}`);
            if (wellFormed(c)) {
              const sent = c.parts.filter((p) => p.filename !== undefined).length;
              assert.equal(rows.length, sent, `one attachment per file part: ${full}`);
            }
            assert.equal((await evidenceRow(evidenceId)).status, 'uploaded', full);
            assert.deepEqual(await pendingRows(evidenceId), [], `the upload journal is cleared: ${full}`);
            assert.equal(record?.state, 'completed', full);
            const added = walkFiles(blobDir).filter((f) => !blobsBefore.includes(f));
            assert.deepEqual(added, rows.map((r) => r.blob_key!).sort(), `exactly the recorded blobs were added: ${full}`);
          } else {
            assertRefusal(res);
            assert.deepEqual(await attachmentRows(evidenceId), [], `a refused upload records no attachment: ${full}`);
            assert.deepEqual(await evidenceRow(evidenceId), evidenceBefore, `a refused upload leaves the evidence as it was: ${full}`);
            assert.deepEqual(await pendingRows(evidenceId), [], `a refused upload leaves no journal entry: ${full}`);
            assert.equal(record, undefined, `a refused upload keeps no idempotency record: ${full}`);
            await eventually(() => assert.deepEqual(walkFiles(blobDir), blobsBefore, `a refused upload leaves no blob: ${full}`));
          }
        }),
        { numRuns: RUNS },
      );
      t.diagnostic(`answers: ${seen}`);
    });

    // Found by the property above: busboy skips a part it cannot read (no Content-Disposition, an
    // unparseable one, or one that is not form-data; RFC 7578 §4.2 requires `form-data`) without
    // an event, so the upload went through with the other parts (201, one file of two stored). A
    // body that is not valid multipart/form-data must be refused as a whole, like a truncated one.
    test('POST /v1/evidence/{id}/attachments: a part whose headers cannot be read is refused, never skipped', async () => {
      const { client, token } = await writerOrg('Unreadable parts');
      const artifacts = artifactFixtures(server.database.db, client.organizationId);
      const k = server.database.db.kysely;
      const unreadable: Array<[string, string]> = [
        ['a filename with an unescaped quote', 'Content-Disposition: form-data; name="files"; filename="b"c.txt"'],
        ['a control character in the filename', 'Content-Disposition: form-data; name="files"; filename="b\u0001.txt"'],
        ['no Content-Disposition', 'Content-Type: text/plain'],
        ['a disposition that is not form-data', 'Content-Disposition: attachment; name="files"; filename="b.txt"'],
      ];
      const problems: string[] = [];
      for (const [label, header] of unreadable) {
        const evidenceId = await artifacts.evidence({ name: 'Unreadable part target', status: 'not_uploaded' });
        const before = await k
          .selectFrom('evidence')
          .select(['status', 'modified_on'])
          .where('id', '=', evidenceId)
          .executeTakeFirstOrThrow();
        const blobsBefore = walkFiles(blobDir);
        const body = Buffer.from(
          '--B\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nhello\r\n' +
            `--B\r\n${header}\r\n\r\nworld\r\n` +
            '--B\r\nContent-Disposition: form-data; name="evidenceDate"\r\n\r\n1700000000000\r\n--B--\r\n',
        );
        const key = newKey();
        const res = await send(`${server.url}/v1/evidence/${evidenceId}/attachments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'idempotency-key': key, 'content-type': 'multipart/form-data; boundary=B' },
          body,
        });
        try {
          const rows = await k.selectFrom('attachments').select(['display_name']).where('evidence_id', '=', evidenceId).execute();
          assert.equal(res.status, 400, `${label}: ${show(res)}; stored ${JSON.stringify(rows.map((r) => r.display_name))}`);
          assertRefusal(res);
          assert.deepEqual(rows, [], label);
          assert.deepEqual(
            await k.selectFrom('evidence').select(['status', 'modified_on']).where('id', '=', evidenceId).executeTakeFirstOrThrow(),
            before,
            label,
          );
          assert.equal(await idempotencyRecord(server, client, key), undefined, label);
          await eventually(() => assert.deepEqual(walkFiles(blobDir), blobsBefore, label));
        } catch (err) {
          problems.push((err as Error).message.split('\n')[0]);
        }
      }
      assert.deepEqual(
        problems,
        [],
        `every unreadable body must be refused as a whole; ${problems.length} of ${unreadable.length} were not`,
      );
    });
  });
}
