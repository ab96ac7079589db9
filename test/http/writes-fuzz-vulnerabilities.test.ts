// Fuzzing the three writes over HTTP, on every engine, against a real server and real databases:
// POST /v1/vulnerabilities, PATCH /v1/vulnerabilities/{vulnerabilityId} and the multipart upload
// POST /v1/evidence/{evidenceId}/attachments. Whatever the body (random JSON, fields of the wrong
// type, huge strings, deep nesting, numbers out of range, broken JSON, wrong content types,
// broken or truncated multipart), the service answers (never hangs), never with a 5xx, refuses
// with the spec's error body (400 validation_failed), and a refused write leaves nothing behind:
// no finding, no changed finding, no attachment row, no changed evidence, no blob file, no
// pending-upload journal entry and no idempotency record for its key. Successes are checked too:
// a 201 create adds exactly one finding that GET then shows, a 200 PATCH answers what GET shows,
// and a 201 upload of a well-formed body stores one attachment (and one blob) per file part.
// FUZZ_RUNS sets the runs per property (default 150); the seed is random on every run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { dialects } from '../harness/engines.ts';
import { createOrgWithCredential, getToken, startServer, type Client, type TestServer } from '../harness/server.ts';
import { fixtures } from '../harness/fixtures.ts';
import { findingFixtures } from '../harness/fixtures-findings.ts';
import { artifactFixtures } from '../harness/fixtures-artifacts.ts';
import { EVIDENCE_STATUSES } from '../../src/domain/vocabulary.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const TIMEOUT_MS = 10_000;
const DAY = 86_400_000;

// ---------------------------------------------------------------------------------------------
// HTTP

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** One request with a deadline; a hang or a dropped connection fails the property with the reason. */
async function send(url: string, init: { method: string; headers: Record<string, string>; body?: Uint8Array }): Promise<Answer> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    text = await res.text();
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.name === 'TimeoutError') throw new Error(`no answer within ${TIMEOUT_MS} ms (hang)`);
    throw new Error(`the request failed without an HTTP answer: ${e.name}: ${e.message} ${e.cause?.code ?? ''} ${e.cause?.message ?? ''}`);
  }
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, text, body };
}

const show = (a: Answer) => `${a.status} ${a.text.length > 600 ? a.text.slice(0, 600) + '…' : a.text}`;

/** Not a 5xx, and a refusal is the spec's `400 validation_failed` with the `/v1` error body. */
function assertRefusal(a: Answer) {
  assert.ok(a.status < 500, `server error: ${show(a)}`);
  assert.equal(a.status, 400, `expected 400 validation_failed, got ${show(a)}`);
  assert.ok(a.body && typeof a.body === 'object', `error body is not JSON: ${show(a)}`);
  assert.deepEqual(Object.keys(a.body).sort(), ['error', 'meta'], show(a));
  const { error, meta } = a.body;
  assert.deepEqual(Object.keys(error).sort(), ['code', 'details', 'message'], show(a));
  assert.equal(error.code, 'validation_failed', show(a));
  assert.equal(typeof error.message, 'string', show(a));
  assert.ok(Array.isArray(error.details), show(a));
  for (const d of error.details) {
    assert.equal(typeof d?.field, 'string', `detail without field: ${show(a)}`);
    assert.equal(typeof d?.message, 'string', `detail without message: ${show(a)}`);
  }
  assert.equal(typeof meta?.requestId, 'string', show(a));
  assert.equal(meta.requestId, a.headers.get('x-request-id'), show(a));
}

let keySeq = 0;
const runTag = randomBytes(4).toString('hex');
const newKey = () => `fuzz-${runTag}-${Date.now().toString(36)}-${++keySeq}`;

// ---------------------------------------------------------------------------------------------
// Database probes (straight from the tables, not through the API)

async function countFindings(server: TestServer, organizationId: string): Promise<number> {
  const row = await server.database.db.kysely
    .selectFrom('vulnerabilities')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function idempotencyRecord(server: TestServer, client: Client, key: string) {
  return server.database.db.kysely
    .selectFrom('idempotency_records')
    .select(['state', 'status_code'])
    .where('credential_id', '=', client.credentialId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

// ---------------------------------------------------------------------------------------------
// JSON bodies: any value, with `Raw` for text JSON.stringify cannot produce (1e400, deep nesting)

class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** JSON.stringify, except that Raw values are written as their text; undefined for no body. */
function toJsonText(value: unknown): string | undefined {
  const raws: string[] = [];
  const token = `__raw_${randomBytes(6).toString('hex')}_`;
  const text = JSON.stringify(value, (_k, v) => (v instanceof Raw ? `${token}${raws.push(v.text) - 1}` : v));
  if (text === undefined) return undefined;
  return text.replace(new RegExp(`"${token}(\\d+)"`, 'g'), (_m, i: string) => raws[Number(i)]);
}

type JsonCase = { kind: 'value'; value: unknown; contentType: string | null } | { kind: 'raw'; text: string; contentType: string | null };

function jsonCaseBody(c: JsonCase): Uint8Array | undefined {
  const text = c.kind === 'raw' ? c.text : toJsonText(c.value);
  return text === undefined ? undefined : Buffer.from(text, 'utf8');
}

/** A label short enough to read in a failure report. */
function describeCase(c: JsonCase): string {
  const text = c.kind === 'raw' ? c.text : (toJsonText(c.value) ?? '(no body)');
  const cut = text.length > 400 ? `${text.slice(0, 400)}… (${text.length} chars)` : text;
  return `content-type ${JSON.stringify(c.contentType)} body ${cut}`;
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'Application/JSON'];
const WRONG_TYPES = [
  null,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'application/vnd.api+json',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/octet-stream',
  '*/*',
  'application/jsonx',
];
const contentType = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...JSON_TYPES) }, { weight: 2, arbitrary: fc.constantFrom(...WRONG_TYPES) });

/** Strings of about `n` characters built by repetition (fast to generate, up to ~200k). */
const sizedString = (lengths: fc.Arbitrary<number>) =>
  fc.tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }), lengths).map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n));
const hugeString = sizedString(fc.oneof(fc.constantFrom(254, 255, 256, 749, 750, 751, 2000, 2001, 2048, 2049), fc.integer({ min: 1, max: 200_000 })));
/** Exactly n code points (the unit AJV counts in maxLength): astral characters stress length checks. */
const codePointString = (n: fc.Arbitrary<number>) =>
  fc.tuple(fc.constantFrom('a', 'é', '文', '😀', '\u{1F468}\u200D\u{1F469}', '\u0000', ' '), n).map(([c, k]) => c.repeat(k));

const deepNesting = fc.tuple(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => {
  const close = open === '[' ? ']' : '}';
  return new Raw(open.repeat(depth) + (open === '[' ? '' : '1') + close.repeat(depth));
});
const numberLiteral = fc
  .constantFrom('1e400', '-1e400', '9223372036854775808', '-9223372036854775809', '123456789012345678901234567890', '1.0', '-0', '0.5e1', '1E3', '8640000000000000', '8640000000000001', '1e-400', '0.1')
  .map((t) => new Raw(t));
const weirdNumber = fc.oneof(
  fc.constantFrom(-1, 0, 1.5, -0, 2 ** 31, 2 ** 53, 2 ** 63, 8.64e15, 8.64e15 + 2, 1e308, Number.MAX_VALUE, Number.MIN_VALUE, -1e308),
  fc.double(),
  fc.integer(),
  fc.maxSafeInteger(),
  numberLiteral,
);
const unicodeString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83d', '\u202eevil', '\ufeff', '\r\n', '\t', '😀'.repeat(300)),
);
/** A value of the wrong kind for whatever field it lands in. */
const weird: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  weirdNumber,
  unicodeString,
  hugeString,
  deepNesting,
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(unicodeString, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

// ---------------------------------------------------------------------------------------------
// POST /v1/vulnerabilities bodies

const PEOPLE = [
  ['Ada Admin', 'ada@example.com'],
  ['Bob Builder', 'Bob.Builder@Example.com'],
] as const;

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const validKey = fc.oneof(
  fc.integer({ min: 0, max: 9999 }).map((n) => `VUL-${pad(n, 4)}`),
  fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.oneof(fc.integer({ min: 0, max: 999 }).map((n) => `0${pad(n, 3)}`), fc.integer({ min: 1000, max: 2 ** 40 }).map(String)))
    .map(([y, seq]) => `CVE-${pad(y, 4)}-${seq}`),
);
const nearKey = fc.constantFrom('VUL-123', 'VUL-12345', 'vul-0001', 'VUL-０００１', 'CVE-2024-123', 'CVE-2024-00001', 'CVE-24-0001', 'VUL-0001\n', ' VUL-0001', 'api#VUL-0001', 'api%23VUL-0001', '');
const email = fc.oneof(
  fc.constantFrom(...PEOPLE.map(([, e]) => e), 'ADA@EXAMPLE.COM', 'nobody@example.com', 'not-an-email', '@example.com', 'a@b', 'ädä@exämple.com', 'ada@example.com ', ''),
  fc.emailAddress(),
);
const validText = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }),
  codePointString(fc.constantFrom(1, 255, 750)),
);
const tag = fc.oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), codePointString(fc.constantFrom(1, 255, 256)), weird);
const resource = fc.record(
  { name: fc.oneof({ weight: 3, arbitrary: validText }, weird), type: fc.oneof({ weight: 3, arbitrary: validText }, weird), tags: fc.oneof(fc.array(tag, { maxLength: 4 }), weird) },
  { requiredKeys: [] },
);

/** Every real field, each either valid or of the wrong kind. */
const CREATE_FIELDS: Record<string, fc.Arbitrary<unknown>> = {
  vulnerabilityId: fc.oneof({ weight: 4, arbitrary: validKey }, nearKey, weird),
  title: fc.oneof({ weight: 4, arbitrary: validText }, weird),
  severity: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('critical', 'high', 'medium', 'low') }, fc.constantFrom('HIGH', 'info', ''), weird),
  status: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('open', 'closed', 'acknowledged') }, fc.constantFrom('ignored', 'risk', 'Open'), weird),
  description: fc.oneof(validText, weird),
  remediation: fc.oneof(validText, weird),
  stepsToReproduce: fc.oneof(validText, weird),
  fixAvailable: fc.oneof(fc.constantFrom('yes', 'no'), fc.constantFrom('YES', true, 'maybe'), weird),
  firstSeen: fc.oneof(fc.constantFrom(0, 1, Date.UTC(2025, 0, 1), 8_640_000_000_000_000), weirdNumber, weird),
  affectedResources: fc.oneof(fc.array(resource, { maxLength: 4 }), fc.array(resource, { minLength: 99, maxLength: 102 }), weird),
  assigneeEmail: fc.oneof({ weight: 2, arbitrary: email }, weird),
  source: fc.oneof(fc.constantFrom('api', 'github'), weird),
};
const REQUIRED = ['vulnerabilityId', 'title', 'severity', 'status'];

/** The smallest valid body, then a few fields set (valid or not), removed, or added. */
const nearlyValidCreate = fc
  .tuple(
    validKey,
    validText,
    fc.constantFrom('critical', 'high', 'medium', 'low'),
    fc.constantFrom('open', 'closed', 'acknowledged'),
    fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...Object.keys(CREATE_FIELDS)).chain((f) => CREATE_FIELDS[f].map((v) => ({ set: f, value: v }))) },
        { weight: 1, arbitrary: fc.constantFrom(...REQUIRED).map((f) => ({ drop: f })) },
        { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 12 }), weird).map(([f, v]) => ({ set: f, value: v })) },
      ),
      { maxLength: 3 },
    ),
  )
  .map(([vulnerabilityId, title, severity, status, edits]) => {
    const body: Record<string, unknown> = { vulnerabilityId, title, severity, status };
    for (const e of edits) {
      if ('drop' in e) delete body[e.drop];
      else Object.defineProperty(body, e.set, { value: e.value, enumerable: true, writable: true, configurable: true });
    }
    return body;
  });

const freeRecord = fc.record(CREATE_FIELDS, { requiredKeys: [] });

/** Texts that are not JSON, or JSON that is not an object, or objects JSON.stringify would not write. */
const rawJson = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    '[]',
    '{',
    '{"a":',
    '"text"',
    '1',
    'true',
    'NaN',
    '{"vulnerabilityId":"VUL-0001",}',
    '\ufeff{"vulnerabilityId":"VUL-0001","title":"t","severity":"low","status":"open"}',
    '{"__proto__":{"polluted":1},"vulnerabilityId":"VUL-0002","title":"t","severity":"low","status":"open"}',
    '{"constructor":{"prototype":{"polluted":1}},"vulnerabilityId":"VUL-0003","title":"t","severity":"low","status":"open"}',
    '{"title":"a","title":"b","vulnerabilityId":"VUL-0004","severity":"low","status":"open","status":"risk"}',
    '{"vulnerabilityId":"VUL-0005","title":"t","severity":"low","status":"open","firstSeen":1e400}',
    '{"vulnerabilityId":"VUL-0006","title":"\\u0000","severity":"low","status":"open"}',
    '{"vulnerabilityId":"VUL-0007","title":"\\ud800","severity":"low","status":"open"}',
  ),
  // a valid body cut anywhere
  fc.tuple(nearlyValidCreate, fc.nat()).map(([b, n]) => {
    const t = toJsonText(b)!;
    return t.slice(0, n % (t.length + 1));
  }),
);

const createCase: fc.Arbitrary<JsonCase> = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(nearlyValidCreate, contentType).map(([value, ct]): JsonCase => ({ kind: 'value', value, contentType: ct })) },
  { weight: 2, arbitrary: fc.tuple(freeRecord, contentType).map(([value, ct]): JsonCase => ({ kind: 'value', value, contentType: ct })) },
  { weight: 1, arbitrary: fc.tuple(fc.anything(), contentType).map(([value, ct]): JsonCase => ({ kind: 'value', value, contentType: ct })) },
  { weight: 1, arbitrary: fc.tuple(fc.jsonValue(), contentType).map(([value, ct]): JsonCase => ({ kind: 'value', value, contentType: ct })) },
  { weight: 2, arbitrary: fc.tuple(rawJson, contentType).map(([text, ct]): JsonCase => ({ kind: 'raw', text, contentType: ct })) },
);

// ---------------------------------------------------------------------------------------------
// PATCH /v1/vulnerabilities/{vulnerabilityId} bodies

interface PatchWorld {
  textFieldId: string;
  dropdownFieldId: string;
  options: string[];
}

const url = fc.oneof(
  fc.webUrl(),
  fc.constantFrom('', 'https://example.com/r', 'http://', 'https://', 'ftp://example.com', 'javascript:alert(1)', 'http://exa mple.com', 'http://a.com/\u0000', 'https://例え.jp/レポート', 'HTTPS://EXAMPLE.COM', 'http://[::1]/x', 'http://%zz'),
  hugeString.map((s) => `https://example.com/${s}`),
);

function patchBody(world: PatchWorld): fc.Arbitrary<unknown> {
  const fieldId = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(world.textFieldId, world.dropdownFieldId) },
    fc.uuid(),
    fc.constantFrom('', 'status', world.textFieldId.toUpperCase()),
    weird,
  );
  const fieldValue = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...world.options, '') }, validText, codePointString(fc.constantFrom(2000, 2001)), weird);
  const entry = fc.record({ customFieldId: fieldId, id: fieldId, fieldValue, value: fieldValue, extra: weird }, { requiredKeys: [] });
  const fields: Record<string, fc.Arbitrary<unknown>> = {
    assigneeEmail: fc.oneof({ weight: 3, arbitrary: email }, weird),
    reportLink: fc.oneof({ weight: 3, arbitrary: url }, weird),
    customFields: fc.oneof({ weight: 3, arbitrary: fc.array(entry, { maxLength: 3 }) }, fc.array(entry, { minLength: 99, maxLength: 102 }), weird),
    status: fc.oneof(fc.constantFrom('closed', 'ignored'), weird),
    source: fc.oneof(fc.constantFrom('api', 'github'), weird),
    title: weird,
  };
  // A valid update (what the spec allows, in both spellings), then a few fields set, removed or added.
  const validEntry = fc.oneof(
    fc.tuple(fc.constantFrom(...world.options, ''), fc.boolean(), fc.boolean()).map(([v, idSpelling, valueSpelling]) => ({
      [idSpelling ? 'id' : 'customFieldId']: world.dropdownFieldId,
      [valueSpelling ? 'value' : 'fieldValue']: v,
    })),
    fc.tuple(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.boolean()).map(([v, both]) => ({
      customFieldId: world.textFieldId,
      fieldValue: v,
      ...(both ? { id: world.textFieldId, value: v } : {}),
    })),
  );
  const validPatch = fc
    .record(
      {
        assigneeEmail: fc.constantFrom(...PEOPLE.map(([, e]) => e), 'ADA@EXAMPLE.COM'),
        reportLink: fc.oneof(fc.webUrl(), fc.constantFrom('', 'https://example.com/report')),
        customFields: fc.uniqueArray(validEntry, { maxLength: 2, selector: (e) => e.customFieldId ?? e.id }),
      },
      { requiredKeys: [] },
    )
    .filter((b) => Object.keys(b).length > 0);
  const nearlyValidPatch = fc
    .tuple(
      validPatch,
      fc.array(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...Object.keys(fields)).chain((f) => fields[f].map((v) => ({ set: f, value: v }))) },
          { weight: 1, arbitrary: fc.constantFrom('assigneeEmail', 'reportLink', 'customFields').map((f) => ({ drop: f })) },
          { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 12 }), weird).map(([f, v]) => ({ set: f, value: v })) },
        ),
        { maxLength: 2 },
      ),
    )
    .map(([base, edits]) => {
      const body: Record<string, unknown> = { ...base };
      for (const e of edits) {
        if ('drop' in e) delete body[e.drop];
        else Object.defineProperty(body, e.set, { value: e.value, enumerable: true, writable: true, configurable: true });
      }
      return body;
    });
  return fc.oneof(
    { weight: 5, arbitrary: nearlyValidPatch },
    { weight: 2, arbitrary: fc.record(fields, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.anything() },
    { weight: 1, arbitrary: fc.jsonValue() },
  );
}

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

type HeaderKind = 'match' | 'quoted' | 'upper' | 'noBoundary' | 'emptyBoundary' | 'otherBoundary' | 'mixed' | 'json' | 'text' | 'none' | 'garbage';

interface UploadCase {
  parts: Part[];
  boundary: string;
  header: HeaderKind;
  garbage: string;
  mutation: Mutation;
}

/** Percent-encodes every UTF-8 byte that is not unreserved (encodeURIComponent throws on lone surrogates). */
const pct = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

function serializeParts(parts: Part[], boundary: string, eol: string, close: boolean): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let disposition = `Content-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) disposition += p.star ? `; filename*=UTF-8''${pct(p.filename)}` : `; filename="${p.filename}"`;
    const head = `--${boundary}${eol}${disposition}${eol}${p.contentType ? `Content-Type: ${p.contentType}${eol}` : ''}${eol}`;
    chunks.push(Buffer.from(head, 'utf8'), typeof p.body === 'string' ? Buffer.from(p.body, 'utf8') : Buffer.from(p.body), Buffer.from(eol));
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
    filename: p.filename === undefined ? undefined : p.filename.length > 80 ? `${p.filename.slice(0, 80)}… (${p.filename.length})` : p.filename,
    star: p.star,
    contentType: p.contentType,
    body: typeof p.body === 'string' ? (p.body.length > 80 ? `${p.body.slice(0, 80)}… (${p.body.length})` : p.body) : `<${p.body.length} bytes>`,
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
  fc.constantFrom('', ' ', '0', '-1', '1.0', '1.5', '1e12', '1E12', '0x10', ' 1700000000000 ', '1700000000000\n', '99999999999999999999', '9007199254740993', 'NaN', 'Infinity', 'null', '１７００'),
  fc.integer({ min: 1, max: 1000 }).map((d) => String(Date.now() + d * DAY)), // the future
  fc.string({ unit: 'binary', maxLength: 30 }),
);
const fieldName = fc.oneof(fc.constantFrom('files', 'file', 'files[]', 'Files', 'evidenceDate', 'note', '', 'evidencedate'), fc.string({ unit: 'binary', maxLength: 12 }));
const fileContentType = fc.option(fc.constantFrom('application/octet-stream', 'text/plain', 'image/png', 'application/zip', 'application/x-msdownload', 'multipart/mixed; boundary=inner'), { nil: undefined });

const goodFilePart: fc.Arbitrary<Part> = fc
  .tuple(validFilename, fc.uint8Array({ minLength: 1, maxLength: 1024 }), fileContentType)
  .map(([fname, body, contentType]) => ({ name: 'files', filename: fname, contentType, body }));
const filePart: fc.Arbitrary<Part> = fc
  .record({ name: fc.oneof({ weight: 4, arbitrary: fc.constant('files') }, fieldName), filename, star: fc.boolean(), contentType: fileContentType, body: fileBytes })
  .map((p) => ({ ...p }));
const datePart: fc.Arbitrary<Part> = evidenceDate.map((body) => ({ name: 'evidenceDate', body }));
const notePart: fc.Arbitrary<Part> = fc
  .oneof(fc.string({ unit: 'grapheme', maxLength: 100 }), fc.string({ unit: 'binary', maxLength: 100 }), codePointString(fc.constantFrom(2000, 2001, 8001)), fc.constantFrom('', '\u0000'))
  .map((body) => ({ name: 'note', body }));
const otherField: fc.Arbitrary<Part> = fc.tuple(fieldName, fc.string({ unit: 'binary', maxLength: 50 })).map(([name, body]) => ({ name, body }));
const anyPart = fc.oneof({ weight: 4, arbitrary: filePart }, { weight: 3, arbitrary: datePart }, { weight: 1, arbitrary: notePart }, { weight: 1, arbitrary: otherField });

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
  { weight: 2, arbitrary: fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 16 })).map(([at, bytes]): Mutation => ({ kind: 'splice', at, bytes })) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 4096 }).map((bytes): Mutation => ({ kind: 'random', bytes })) },
);
const headerKind = fc.oneof(
  { weight: 10, arbitrary: fc.constant<HeaderKind>('match') },
  { weight: 4, arbitrary: fc.constantFrom<HeaderKind>('quoted', 'upper', 'noBoundary', 'emptyBoundary', 'otherBoundary', 'mixed', 'json', 'text', 'none', 'garbage') },
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

/** Counts answers by status (and error code), shown as a test diagnostic: what the fuzz reached. */
function tally() {
  const counts = new Map<string, number>();
  return {
    add(a: Answer) {
      const label = a.status >= 400 ? `${a.status} ${a.body?.error?.code ?? '?'}` : String(a.status);
      counts.set(label, (counts.get(label) ?? 0) + 1);
    },
    toString: () => [...counts].sort((x, y) => y[1] - x[1]).map(([k, n]) => `${k}: ${n}`).join(', '),
  };
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

// ---------------------------------------------------------------------------------------------

for (const dialect of dialects) {
  describe(`write endpoints under fuzzed input (${dialect})`, () => {
    let server: TestServer;
    let blobDir: string;

    before(async () => {
      blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-fuzz-blobs-'));
      server = await startServer({ dialect, env: { RATE_LIMIT_MAX: '100000', BLOB_DIR: blobDir } });
    });
    after(async () => {
      await server.close();
      fs.rmSync(blobDir, { recursive: true, force: true });
    });

    async function writerOrg(name: string) {
      const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name });
      const token = await getToken(server.url, client);
      const base = fixtures(server.database.db, client.organizationId);
      for (const [n, e] of PEOPLE) await base.person(n, e);
      return { client, token };
    }

    test('POST /v1/vulnerabilities: never 5xx; a refusal is 400 validation_failed and writes nothing, a 201 exactly one finding', async (t) => {
      const { client, token } = await writerOrg('Fuzz create');
      const seen = tally();
      await fc.assert(
        fc.asyncProperty(createCase, async (c) => {
          const key = newKey();
          const before = await countFindings(server, client.organizationId);
          const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'idempotency-key': key };
          if (c.contentType !== null) headers['content-type'] = c.contentType;
          const res = await send(`${server.url}/v1/vulnerabilities`, { method: 'POST', headers, body: jsonCaseBody(c) });
          seen.add(res);
          const label = `${describeCase(c)} → ${show(res)}`;
          const afterCount = await countFindings(server, client.organizationId);
          const record = await idempotencyRecord(server, client, key);
          if (res.status === 201) {
            assert.equal(afterCount, before + 1, `a 201 stores exactly one finding: ${label}`);
            assert.equal(record?.state, 'completed', `a 201 is stored for replay: ${label}`);
            const data = res.body.data;
            assert.equal(data.source, 'api', label);
            assert.match(data.vulnerabilityId, /^api%23(VUL-|CVE-)/, label);
            const read = await send(`${server.url}/v1/vulnerabilities/${data.vulnerabilityId}`, { method: 'GET', headers: { authorization: `Bearer ${token}` } });
            assert.equal(read.status, 200, label);
            assert.deepEqual(read.body.data, data, `GET answers what the 201 said: ${label}`);
          } else {
            assertRefusal(res);
            assert.equal(afterCount, before, `a refused create stores no finding: ${label}`);
            assert.equal(record, undefined, `a refused create keeps no idempotency record: ${label}`);
          }
        }),
        { numRuns: RUNS },
      );
      t.diagnostic(`answers: ${seen}`);
    });

    test('PATCH /v1/vulnerabilities/{id}: never 5xx; when not 200 the finding is unchanged; a 200 answers what GET then says', async (t) => {
      const { client, token } = await writerOrg('Fuzz update');
      const seen = tally();
      const findings = findingFixtures(server.database.db, client.organizationId);
      const options = ['Low', 'Medium', 'High', 'ünï', ' spaced '];
      const world: PatchWorld = {
        textFieldId: await findings.customField('Notes', 'text_box', [], 0),
        dropdownFieldId: await findings.customField('Impact', 'dropdown', options, 1),
        options,
      };
      const created = await send(`${server.url}/v1/vulnerabilities`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': newKey(), 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ vulnerabilityId: 'VUL-0042', title: 'Patched', severity: 'high', status: 'open', assigneeEmail: PEOPLE[0][1] })),
      });
      assert.equal(created.status, 201, show(created));
      const id: string = created.body.data.vulnerabilityId;
      const getData = async () => {
        const r = await send(`${server.url}/v1/vulnerabilities/${id}`, { method: 'GET', headers: { authorization: `Bearer ${token}` } });
        assert.equal(r.status, 200, show(r));
        return r.body.data;
      };
      let current = await getData();

      const patchCase: fc.Arbitrary<JsonCase> = fc.oneof(
        { weight: 6, arbitrary: fc.tuple(patchBody(world), contentType).map(([value, ct]): JsonCase => ({ kind: 'value', value, contentType: ct })) },
        { weight: 1, arbitrary: fc.tuple(rawJson, contentType).map(([text, ct]): JsonCase => ({ kind: 'raw', text, contentType: ct })) },
      );
      await fc.assert(
        fc.asyncProperty(patchCase, async (c) => {
          const key = newKey();
          const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'idempotency-key': key };
          if (c.contentType !== null) headers['content-type'] = c.contentType;
          const res = await send(`${server.url}/v1/vulnerabilities/${id}`, { method: 'PATCH', headers, body: jsonCaseBody(c) });
          seen.add(res);
          const label = `${describeCase(c)} → ${show(res)}`;
          const now = await getData();
          const record = await idempotencyRecord(server, client, key);
          if (res.status === 200) {
            assert.deepEqual(res.body.data, now, `PATCH answers the object GET returns: ${label}`);
            assert.equal(record?.state, 'completed', label);
            assert.equal(now.source, 'api', label);
            assert.equal(now.status, current.status, `status is not writable: ${label}`);
            assert.equal(now.title, current.title, `title is not writable: ${label}`);
            current = now;
          } else {
            assertRefusal(res);
            assert.deepEqual(now, current, `a refused PATCH changes nothing: ${label}`);
            assert.equal(record, undefined, `a refused PATCH keeps no idempotency record: ${label}`);
          }
        }),
        { numRuns: RUNS },
      );
      t.diagnostic(`answers: ${seen}`);
    });

    test('POST /v1/evidence/{id}/attachments: never 5xx or a hang; a refusal records nothing and leaves no blob', async (t) => {
      const { client, token } = await writerOrg('Fuzz upload');
      const seen = tally();
      const artifacts = artifactFixtures(server.database.db, client.organizationId);
      const k = server.database.db.kysely;
      const evidenceRow = (id: string) => k.selectFrom('evidence').select(['status', 'modified_on']).where('id', '=', id).executeTakeFirstOrThrow();
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
        const before = await k.selectFrom('evidence').select(['status', 'modified_on']).where('id', '=', evidenceId).executeTakeFirstOrThrow();
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
          assert.deepEqual(await k.selectFrom('evidence').select(['status', 'modified_on']).where('id', '=', evidenceId).executeTakeFirstOrThrow(), before, label);
          assert.equal(await idempotencyRecord(server, client, key), undefined, label);
          await eventually(() => assert.deepEqual(walkFiles(blobDir), blobsBefore, label));
        } catch (err) {
          problems.push((err as Error).message.split('\n')[0]);
        }
      }
      assert.deepEqual(problems, [], `every unreadable body must be refused as a whole; ${problems.length} of ${unreadable.length} were not`);
    });
  });
}
