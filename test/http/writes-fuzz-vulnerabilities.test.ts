// Fuzzing POST /v1/vulnerabilities and PATCH /v1/vulnerabilities/{vulnerabilityId} over HTTP, on
// every engine, against a real server and real databases. Whatever the body (random JSON, fields of
// the wrong type, huge strings, deep nesting, numbers out of range, broken JSON, wrong content
// types), the service answers (never hangs), never with a 5xx, refuses with the spec's error body
// (400 validation_failed), and a refused write leaves nothing behind: no finding, no changed
// finding and no idempotency record for its key. Successes are checked too: a 201 create adds
// exactly one finding that GET then shows, a 200 PATCH answers what GET shows.
// FUZZ_RUNS sets the runs per property (default 150); the seed is random on every run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { dialects } from '../harness/engines.ts';
import type { TestServer } from '../harness/server.ts';
import { findingFixtures } from '../harness/fixtures-findings.ts';
import {
  RUNS,
  send,
  show,
  assertRefusal,
  newKey,
  idempotencyRecord,
  PEOPLE,
  codePointString,
  tally,
  startFuzzServer,
  stopFuzzServer,
  newWriterOrg,
} from '../harness/fuzz.ts';

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
const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...JSON_TYPES) },
  { weight: 2, arbitrary: fc.constantFrom(...WRONG_TYPES) },
);

/** Strings of about `n` characters built by repetition (fast to generate, up to ~200k). */
const sizedString = (lengths: fc.Arbitrary<number>) =>
  fc
    .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }), lengths)
    .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n));
const hugeString = sizedString(
  fc.oneof(fc.constantFrom(254, 255, 256, 749, 750, 751, 2000, 2001, 2048, 2049), fc.integer({ min: 1, max: 200_000 })),
);

const deepNesting = fc.tuple(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => {
  const close = open === '[' ? ']' : '}';
  return new Raw(open.repeat(depth) + (open === '[' ? '' : '1') + close.repeat(depth));
});
const numberLiteral = fc
  .constantFrom(
    '1e400',
    '-1e400',
    '9223372036854775808',
    '-9223372036854775809',
    '123456789012345678901234567890',
    '1.0',
    '-0',
    '0.5e1',
    '1E3',
    '8640000000000000',
    '8640000000000001',
    '1e-400',
    '0.1',
  )
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

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const validKey = fc.oneof(
  fc.integer({ min: 0, max: 9999 }).map((n) => `VUL-${pad(n, 4)}`),
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.oneof(
        fc.integer({ min: 0, max: 999 }).map((n) => `0${pad(n, 3)}`),
        fc.integer({ min: 1000, max: 2 ** 40 }).map(String),
      ),
    )
    .map(([y, seq]) => `CVE-${pad(y, 4)}-${seq}`),
);
const nearKey = fc.constantFrom(
  'VUL-123',
  'VUL-12345',
  'vul-0001',
  'VUL-０００１',
  'CVE-2024-123',
  'CVE-2024-00001',
  'CVE-24-0001',
  'VUL-0001\n',
  ' VUL-0001',
  'api#VUL-0001',
  'api%23VUL-0001',
  '',
);
const email = fc.oneof(
  fc.constantFrom(
    ...PEOPLE.map(([, e]) => e),
    'ADA@EXAMPLE.COM',
    'nobody@example.com',
    'not-an-email',
    '@example.com',
    'a@b',
    'ädä@exämple.com',
    'ada@example.com ',
    '',
  ),
  fc.emailAddress(),
);
const validText = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }),
  codePointString(fc.constantFrom(1, 255, 750)),
);
const tag = fc.oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), codePointString(fc.constantFrom(1, 255, 256)), weird);
const resource = fc.record(
  {
    name: fc.oneof({ weight: 3, arbitrary: validText }, weird),
    type: fc.oneof({ weight: 3, arbitrary: validText }, weird),
    tags: fc.oneof(fc.array(tag, { maxLength: 4 }), weird),
  },
  { requiredKeys: [] },
);

/** Every real field, each either valid or of the wrong kind. */
const CREATE_FIELDS: Record<string, fc.Arbitrary<unknown>> = {
  vulnerabilityId: fc.oneof({ weight: 4, arbitrary: validKey }, nearKey, weird),
  title: fc.oneof({ weight: 4, arbitrary: validText }, weird),
  severity: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('critical', 'high', 'medium', 'low') },
    fc.constantFrom('HIGH', 'info', ''),
    weird,
  ),
  status: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('open', 'closed', 'acknowledged') },
    fc.constantFrom('ignored', 'risk', 'Open'),
    weird,
  ),
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
        {
          weight: 6,
          arbitrary: fc.constantFrom(...Object.keys(CREATE_FIELDS)).chain((f) => CREATE_FIELDS[f].map((v) => ({ set: f, value: v }))),
        },
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
  {
    weight: 5,
    arbitrary: fc.tuple(nearlyValidCreate, contentType).map(([value, ct]): JsonCase => ({ kind: 'value', value, contentType: ct })),
  },
  { weight: 2, arbitrary: fc.tuple(freeRecord, contentType).map(([value, ct]): JsonCase => ({ kind: 'value', value, contentType: ct })) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.anything(), contentType).map(([value, ct]): JsonCase => ({ kind: 'value', value, contentType: ct })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.jsonValue(), contentType).map(([value, ct]): JsonCase => ({ kind: 'value', value, contentType: ct })),
  },
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
  fc.constantFrom(
    '',
    'https://example.com/r',
    'http://',
    'https://',
    'ftp://example.com',
    'javascript:alert(1)',
    'http://exa mple.com',
    'http://a.com/\u0000',
    'https://例え.jp/レポート',
    'HTTPS://EXAMPLE.COM',
    'http://[::1]/x',
    'http://%zz',
  ),
  hugeString.map((s) => `https://example.com/${s}`),
);

function patchBody(world: PatchWorld): fc.Arbitrary<unknown> {
  const fieldId = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(world.textFieldId, world.dropdownFieldId) },
    fc.uuid(),
    fc.constantFrom('', 'status', world.textFieldId.toUpperCase()),
    weird,
  );
  const fieldValue = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...world.options, '') },
    validText,
    codePointString(fc.constantFrom(2000, 2001)),
    weird,
  );
  const entry = fc.record({ customFieldId: fieldId, id: fieldId, fieldValue, value: fieldValue, extra: weird }, { requiredKeys: [] });
  const fields: Record<string, fc.Arbitrary<unknown>> = {
    assigneeEmail: fc.oneof({ weight: 3, arbitrary: email }, weird),
    reportLink: fc.oneof({ weight: 3, arbitrary: url }, weird),
    customFields: fc.oneof(
      { weight: 3, arbitrary: fc.array(entry, { maxLength: 3 }) },
      fc.array(entry, { minLength: 99, maxLength: 102 }),
      weird,
    ),
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

for (const dialect of dialects) {
  describe(`write endpoints under fuzzed input (${dialect})`, () => {
    let server: TestServer;
    let blobDir: string;

    before(async () => {
      ({ server, blobDir } = await startFuzzServer(dialect));
    });
    after(() => stopFuzzServer(server, blobDir));

    const writerOrg = (name: string) => newWriterOrg(server, name);

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
            const read = await send(`${server.url}/v1/vulnerabilities/${data.vulnerabilityId}`, {
              method: 'GET',
              headers: { authorization: `Bearer ${token}` },
            });
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
        body: Buffer.from(
          JSON.stringify({ vulnerabilityId: 'VUL-0042', title: 'Patched', severity: 'high', status: 'open', assigneeEmail: PEOPLE[0][1] }),
        ),
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
        {
          weight: 6,
          arbitrary: fc.tuple(patchBody(world), contentType).map(([value, ct]): JsonCase => ({ kind: 'value', value, contentType: ct })),
        },
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
  });
}
