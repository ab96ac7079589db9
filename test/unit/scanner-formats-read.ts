// Shared by the scanner format tests: read a file through src/formats/scanners/formats.ts the way
// the import pipeline will (chunks of bytes), checking every finding against the domain shape.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { Value } from 'typebox/value';
import { ServiceError } from '../../src/shared/errors.ts';
import { ScannedFinding, ScanSummary } from '../../src/domain/vulnerabilities/scanned-finding.ts';
import { parseScan, type ScannerFormat } from '../../src/formats/scanners/formats.ts';
import type { ByteChunks } from '../../src/formats/scanners/json-stream.ts';

export const fixture = (name: string) => readFileSync(new URL(`./fixtures/scanners/${name}`, import.meta.url), 'utf8');

/** The text as UTF-8 chunks of `size` bytes (a multi-byte character may be split across two). */
export function chunked(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

export async function readScan(format: ScannerFormat, input: string | ByteChunks, chunkSize = 4096) {
  const gen = parseScan(format, typeof input === 'string' ? chunked(input, chunkSize) : input);
  const findings: ScannedFinding[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) {
      assert.ok(Value.Check(ScanSummary, step.value), JSON.stringify([...Value.Errors(ScanSummary, step.value)]));
      return { findings, summary: step.value };
    }
    assert.ok(Value.Check(ScannedFinding, step.value), JSON.stringify([...Value.Errors(ScannedFinding, step.value)].slice(0, 3)));
    findings.push(step.value);
  }
}

/** The one detail of the validation error the file gives, and how many findings came before it. */
export async function scanError(format: ScannerFormat, input: string | ByteChunks, chunkSize = 4096) {
  let yielded = 0;
  try {
    const gen = parseScan(format, typeof input === 'string' ? chunked(input, chunkSize) : input);
    while (!(await gen.next()).done) yielded += 1;
  } catch (error) {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.details.length, 1);
    return { ...(error.details[0] as { field: string; message: string }), yielded };
  }
  assert.fail(`expected ${format} to refuse the file, it read ${yielded} findings`);
}

export const byKey = (findings: readonly ScannedFinding[]) => new Map(findings.map((f) => [f.key, f]));

/**
 * The property every reader keeps (a scanner format's, by name, or a check-results parser): a text made of `pieces` (the format's own words and
 * punctuation), arbitrary bytes or an arbitrary string is read to its end or refused with
 * validation_failed, never anything else (no other error, no hang).
 */
export async function readsOrRefuses(
  format: ScannerFormat | ((chunks: Buffer[]) => AsyncGenerator<unknown, unknown>),
  pieces: readonly string[],
  maxPieces: number,
  numRuns: number,
) {
  const read = typeof format === 'function' ? format : (chunks: Buffer[]) => parseScan(format, chunks);
  const texts = fc.oneof(
    fc.array(fc.constantFrom(...pieces), { maxLength: maxPieces }).map((parts) => parts.join('')),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
    fc.string({ unit: 'binary', maxLength: 200 }),
  );
  await fc.assert(
    fc.asyncProperty(texts, async (text) => {
      try {
        const gen = read([Buffer.from(text, 'utf8')]);
        while (!(await gen.next()).done) {
          // read to the end
        }
      } catch (error) {
        assert.ok(error instanceof ServiceError && error.code === 'validation_failed', String(error));
      }
    }),
    { numRuns },
  );
}
