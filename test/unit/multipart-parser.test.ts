// The multipart/form-data parser of the attachment upload (src/http/multipart-parser.ts), on its
// own: the same parts whatever the chunking (delimiters, CRLFs and headers split at every offset),
// preamble and epilogue ignored, file bytes handed over as views (never copied), and every
// malformed body refused. The HTTP behaviour is covered by test/http/evidence-upload-*.test.ts
// and test/http/writes-fuzz-uploads.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  MAX_PART_HEADER_BYTES,
  MultipartError,
  MultipartParser,
  parseHeaderValue,
  parsePartHeaders,
  type PartHeaders,
} from '../../src/http/multipart-parser.ts';

interface Parsed {
  headers: PartHeaders;
  body: Buffer;
}

/** Parses `body` cut into `chunks` (offsets where a new chunk starts), ending it unless `end` is false. */
function parse(boundary: string, body: Buffer, cuts: number[] = [], { end = true } = {}): Parsed[] {
  const parts: Parsed[] = [];
  let current: { headers: PartHeaders; data: Buffer[] } | undefined;
  const parser = new MultipartParser(boundary, {
    partStart(headers) {
      assert.equal(current, undefined, 'a part starts only after the previous one ended');
      current = { headers, data: [] };
    },
    partData(data) {
      assert.ok(current, 'data only inside a part');
      assert.ok(data.length > 0, 'no empty data calls');
      current.data.push(Buffer.from(data));
    },
    partEnd() {
      assert.ok(current);
      parts.push({ headers: current.headers, body: Buffer.concat(current.data) });
      current = undefined;
    },
  });
  const offsets = [0, ...cuts.filter((c) => c > 0 && c < body.length).sort((a, b) => a - b), body.length];
  for (let i = 0; i + 1 < offsets.length; i++) if (offsets[i + 1] > offsets[i]) parser.write(body.subarray(offsets[i], offsets[i + 1]));
  if (end) parser.end();
  return parts;
}

type Spec = { name: string; filename?: string; body: Buffer | string; extraHeaders?: string };

function build(boundary: string, specs: Spec[], { preamble = '', epilogue = '' } = {}): Buffer {
  const chunks: Buffer[] = [Buffer.from(preamble ? `${preamble}\r\n` : '')];
  for (const s of specs) {
    const disposition = `form-data; name="${s.name}"${s.filename === undefined ? '' : `; filename="${s.filename}"`}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${s.extraHeaders ?? ''}\r\n`));
    chunks.push(Buffer.from(s.body));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--${epilogue ? `\r\n${epilogue}` : ''}`));
  return Buffer.concat(chunks);
}

const simple = (parts: Parsed[]) =>
  parts.map((p) => ({ name: p.headers.name, filename: p.headers.filename, body: p.body.toString('latin1') }));
const expected = (specs: Spec[]) =>
  specs.map((s) => ({ name: s.name, filename: s.filename, body: Buffer.from(s.body).toString('latin1') }));

const B = 'XyZ-boundary';
// Content that looks like the delimiter or its beginnings, CRs and LFs alone and together.
const tricky: Spec[] = [
  { name: 'evidenceDate', body: '1700000000000' },
  { name: 'files', filename: 'a.txt', body: `\r\n--XyZ-boundar\r\r\n-\r\n--XyZ\n--XyZ-boundary-\r--XyZ-boundary\r\n` },
  { name: 'files', filename: 'b.bin', body: Buffer.from([0, 13, 10, 45, 45, 13, 13, 10, 10, 255, 13]) },
  { name: 'note', body: '' },
  { name: 'files', filename: 'c.txt', body: '\r' },
];

describe('multipart parser', () => {
  test('the parts of a body, whole', () => {
    assert.deepEqual(simple(parse(B, build(B, tricky))), expected(tricky));
  });

  test('the same parts when the body is cut in two at every offset', () => {
    const body = build(B, tricky, { preamble: 'preamble --XyZ-boundary', epilogue: 'epilogue\r\n--XyZ-boundary\r\n' });
    for (let cut = 1; cut < body.length; cut++) assert.deepEqual(simple(parse(B, body, [cut])), expected(tricky), `cut at ${cut}`);
  });

  test('the same parts when the body comes one byte at a time, and in three pieces at many offsets', () => {
    const body = build(B, tricky);
    assert.deepEqual(
      simple(
        parse(
          B,
          body,
          Array.from({ length: body.length }, (_, i) => i),
        ),
      ),
      expected(tricky),
    );
    for (let a = 1; a < body.length; a += 3)
      for (let b = a + 1; b < body.length; b += 5) assert.deepEqual(simple(parse(B, body, [a, b])), expected(tricky), `cuts ${a}, ${b}`);
  });

  test('any content without the delimiter, any boundary, any chunking: the parts as sent', () => {
    const boundary = fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,70}$/);
    // Content biased towards the delimiter's own bytes.
    const content = fc
      .array(fc.oneof(fc.constantFrom('\r', '\n', '-', '--', '\r\n', '\r\n--'), fc.string({ maxLength: 8 })), { maxLength: 30 })
      .map((xs) => xs.join(''));
    fc.assert(
      fc.property(
        boundary,
        fc.array(fc.record({ file: fc.boolean(), body: content }), { maxLength: 6 }),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 12 }),
        (b, raw, cuts) => {
          const specs: Spec[] = raw
            .filter((p) => !`\r\n${p.body}\r\n`.includes(`\r\n--${b}`))
            .map((p, i) => (p.file ? { name: 'files', filename: `f${i}.txt`, body: p.body } : { name: `field${i}`, body: p.body }));
          const body = build(b, specs);
          assert.deepEqual(simple(parse(b, body, cuts)), expected(specs));
        },
      ),
      { numRuns: 500 },
    );
  });

  test('a body that is only the closing delimiter has no parts; one that starts with it needs no CRLF before', () => {
    assert.deepEqual(parse(B, Buffer.from(`--${B}--`)), []);
    assert.deepEqual(parse(B, Buffer.from(`--${B}--\r\n`)), []);
    assert.deepEqual(simple(parse(B, Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--${B}--`))), [
      { name: 'a', filename: undefined, body: 'x' },
    ]);
  });

  test('transport padding after a boundary is allowed', () => {
    const body = Buffer.from(`--${B} \t \r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--${B}--  \r\n`);
    assert.deepEqual(simple(parse(B, body)), [{ name: 'a', filename: undefined, body: 'v' }]);
  });

  test('file bytes are views into the chunks written, not copies', () => {
    const body = build(B, [{ name: 'files', filename: 'big.bin', body: Buffer.alloc(64 * 1024, 7) }]);
    const seen: Buffer[] = [];
    const parser = new MultipartParser(B, { partStart() {}, partData: (d) => seen.push(d), partEnd() {} });
    parser.write(body);
    parser.end();
    assert.equal(seen.length, 1);
    assert.equal(seen[0].buffer, body.buffer, 'the part’s bytes share the chunk’s memory');
  });

  describe('refused', () => {
    const refuses = (label: string, body: string | Buffer, boundary = B) =>
      test(label, () => {
        const bytes = Buffer.from(body);
        // whole, and cut at every offset: the same refusal, never a hang or another exception
        const step = Math.max(1, Math.floor(bytes.length / 200));
        for (let cut = 0; cut === 0 || cut < bytes.length; cut += step)
          assert.throws(() => parse(boundary, bytes, [cut]), MultipartError, `${label}, cut at ${cut}`);
      });
    const part = (headers: string, content = 'x') => `--${B}\r\n${headers}\r\n\r\n${content}\r\n`;
    const ok = 'Content-Disposition: form-data; name="a"';

    refuses('no closing delimiter', part(ok));
    refuses('the body ends inside a part', `${part(ok)}--${B}\r\n${ok}\r\n\r\nunfinished`);
    refuses('the body ends inside the headers', `--${B}\r\n${ok}\r\n`);
    refuses('an empty body', '');
    refuses('a body without any delimiter', 'just some text');
    refuses('bytes after a boundary', `--${B}x\r\n${ok}\r\n\r\nv\r\n--${B}--`);
    refuses('a single dash after a boundary', `--${B}-x\r\n${ok}\r\n\r\nv\r\n--${B}--`);
    refuses('a CR without LF after a boundary', `--${B}\rContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--${B}--`);
    refuses('a part without Content-Disposition', `${part('Content-Type: text/plain')}--${B}--`);
    refuses('a part without any header', `${part('')}--${B}--`.replace('\r\n\r\n\r\n', '\r\n\r\n'));
    refuses('a disposition that is not form-data', `${part('Content-Disposition: attachment; name="a"')}--${B}--`);
    refuses('an unterminated quote', `${part('Content-Disposition: form-data; name="a')}--${B}--`);
    refuses('a quote inside a quoted file name', `${part('Content-Disposition: form-data; name="files"; filename="b"c.txt"')}--${B}--`);
    refuses('a control character in a header', `${part('Content-Disposition: form-data; name="files"; filename="b\u0001.txt"')}--${B}--`);
    refuses('a header line without a colon', `${part(`${ok}\r\nnot a header`)}--${B}--`);
    refuses('a lone LF inside the headers', `${part(`${ok}\nX-Other: 1`)}--${B}--`);
    refuses('a parameter without a value', `${part('Content-Disposition: form-data; name')}--${B}--`);
    refuses('a broken filename*', `${part('Content-Disposition: form-data; name="files"; filename*=UTF-8\'\'%E2%8')}--${B}--`);
    refuses('a media type without a subtype', `${part(`${ok}\r\nContent-Type: text`)}--${B}--`);
    refuses('21 header lines', `${part([ok, ...Array.from({ length: 20 }, (_, i) => `X-H${i}: v`)].join('\r\n'))}--${B}--`);
    refuses('headers longer than the limit', `${part(`${ok}\r\nX-Long: ${'a'.repeat(MAX_PART_HEADER_BYTES)}`)}--${B}--`);

    test('headers longer than the limit are refused as soon as the limit is passed, without the end of the headers', () => {
      const parser = new MultipartParser(B, { partStart() {}, partData() {}, partEnd() {} });
      parser.write(Buffer.from(`--${B}\r\n${ok}\r\nX-Long: `));
      assert.throws(() => {
        for (let i = 0; i < 100; i++) parser.write(Buffer.alloc(1024, 'a'));
      }, MultipartError);
    });

    test('a boundary longer than 70 characters, empty, or with a control character', () => {
      for (const b of ['x'.repeat(71), '', 'a\rb', 'a\nb', 'ends with a space ']) {
        assert.throws(() => new MultipartParser(b, { partStart() {}, partData() {}, partEnd() {} }), MultipartError, JSON.stringify(b));
      }
      assert.doesNotThrow(() => new MultipartParser('x'.repeat(70), { partStart() {}, partData() {}, partEnd() {} }));
    });
  });
});

describe('part headers', () => {
  const headersOf = (lines: string) => parsePartHeaders(Buffer.from(lines));

  test('name, file name, media type and charset; header names in any case; defaults', () => {
    assert.deepEqual(
      headersOf('content-DISPOSITION: Form-Data; Name="files"; FILENAME="r.txt"\r\nContent-Type: Text/Plain; Charset=ISO-8859-1'),
      {
        name: 'files',
        filename: 'r.txt',
        contentType: 'text/plain',
        charset: 'iso-8859-1',
      },
    );
    assert.deepEqual(headersOf('Content-Disposition: form-data; name=evidenceDate'), {
      name: 'evidenceDate',
      filename: undefined,
      contentType: 'text/plain',
      charset: 'utf-8',
    });
  });

  test('the file name is its last path segment; a Windows path is not read as escapes; . and .. name nothing', () => {
    const name = (v: string) => headersOf(`Content-Disposition: form-data; name="files"; filename="${v}"`).filename;
    assert.equal(name('C:\\Users\\me\\export.xml'), 'export.xml');
    assert.equal(name('../../../outside.txt'), 'outside.txt');
    assert.equal(name('a\\"b.txt'), 'a"b.txt');
    assert.equal(name('..'), '');
    assert.equal(name(''), '');
  });

  test('filename* (RFC 5987) wins over filename, in UTF-8 or another charset', () => {
    const h = headersOf('Content-Disposition: form-data; name="files"; filename="fallback.txt"; filename*=UTF-8\'\'%E2%82%AC%20rates.txt');
    assert.equal(h.filename, '€ rates.txt');
    assert.equal(headersOf("Content-Disposition: form-data; name=files; filename*=iso-8859-1'en'caf%E9.txt").filename, 'café.txt');
  });

  test('UTF-8 file names sent raw (as browsers do) are read as UTF-8', () => {
    assert.equal(headersOf('Content-Disposition: form-data; name="files"; filename="résumé 2026.txt"').filename, 'résumé 2026.txt');
  });

  test('a folded header line continues the previous header', () => {
    assert.equal(headersOf('Content-Disposition: form-data;\r\n name="folded"').name, 'folded');
  });

  test('header values: token or quoted parameters, first of a repeated one counts, a trailing ";" is allowed', () => {
    assert.deepEqual(parseHeaderValue('form-data; name="a"; name="b";'), { value: 'form-data', params: new Map([['name', 'a']]) });
    assert.equal(parseHeaderValue('form-data; name="a" x'), undefined);
    assert.equal(parseHeaderValue('; name=a'), undefined);
  });
});
