// The multipart parser alone, side by side with busboy (the parser the service used before
// src/http/multipart-parser.ts): 100 MiB in 5 files, fed in 64 KiB chunks as the HTTP server hands
// them over, in this process, no disk. Prints MiB/s of each and the ratio, best of N rounds.
//
//   node bench/multipart.ts [--rounds 5]
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import busboy from 'busboy';
import { MultipartParser } from '../src/http/multipart-parser.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);
const MiB = 1024 * 1024;
const BOUNDARY = '----formdata-bench-0123456789';
const CHUNK = 64 * 1024;

/** The body as the chunks a socket would deliver, made once (the parsers alone are timed). */
function makeChunks(): Buffer[] {
  const file = Buffer.alloc(20 * MiB);
  for (let i = 0; i < file.length; i++) file[i] = (i * 31) & 0xff; // bytes of every value, CRs and dashes among them
  const body = Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="evidenceDate"\r\n\r\n1700000000000\r\n`),
    ...Array.from({ length: 5 }, (_, f) =>
      Buffer.concat([
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="f${f}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        file,
        Buffer.from('\r\n'),
      ]),
    ),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ]);
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; at += CHUNK) out.push(Buffer.from(body.subarray(at, at + CHUNK)));
  return out;
}
const CHUNKS = makeChunks();

async function withBusboy(): Promise<number> {
  let bytes = 0;
  const parser = busboy({ headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } });
  const done = new Promise<void>((resolve, reject) => {
    parser.on('file', (_name, stream) => stream.on('data', (d: Buffer) => (bytes += d.length)));
    parser.on('close', resolve);
    parser.on('error', reject);
  });
  const sink = parser as unknown as Writable;
  for (const c of CHUNKS) if (!sink.write(c)) await new Promise((r) => sink.once('drain', r));
  sink.end();
  await done;
  return bytes;
}

async function withOwnParser(): Promise<number> {
  let bytes = 0;
  const parser = new MultipartParser(BOUNDARY, { partStart() {}, partData: (d) => (bytes += d.length), partEnd() {} });
  for (const c of CHUNKS) parser.write(c);
  parser.end();
  return bytes;
}

const results: Record<string, number[]> = { busboy: [], 'multipart-parser.ts': [] };
for (let round = 0; round <= rounds; round++) {
  for (const [name, run] of [
    ['busboy', withBusboy],
    ['multipart-parser.ts', withOwnParser],
  ] as const) {
    const started = performance.now();
    const bytes = await run();
    const seconds = (performance.now() - started) / 1000;
    if (bytes < 100 * MiB) throw new Error(`${name} saw ${bytes} bytes of files`);
    if (round > 0) results[name].push(100 / seconds); // round 0 warms up
  }
}
const best = (xs: number[]) => Math.max(...xs);
console.log(`Parsing 100 MiB in 5 files from 64 KiB chunks, best of ${rounds} rounds`);
for (const [name, rates] of Object.entries(results)) console.log(`  ${name.padEnd(22)} ${best(rates).toFixed(0).padStart(6)} MiB/s`);
console.log(`  ratio multipart-parser.ts / busboy: ${(best(results['multipart-parser.ts']) / best(results.busboy)).toFixed(2)}`);
