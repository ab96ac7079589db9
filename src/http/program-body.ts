// The body of PUT /v1/program (and the console's upload): a program document as YAML or JSON, or an
// OSCAL catalog in JSON, read as bytes within PROGRAM_MAX_BYTES — not through the API's JSON body
// parser, whose 1 MiB and 4,096-entry bounds fit single records, not a whole program
// (src/http/json-body.ts). The routes register these parsers in their own plugin scope, so no
// other route accepts YAML or large bodies. The bytes are parsed by src/formats/program/load.ts.
import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { validationFailed } from '../shared/errors.ts';
import { byteSize } from '../shared/program-limits.ts';
import type { ProgramFormat } from '../formats/program/load.ts';
import { noteBodyBytes } from './body-scavenges.ts';

export const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'] as const;
export const PROGRAM_BODY_TYPES = ['application/json', ...YAML_TYPES] as const;

const tooLarge = (maxBytes: number) =>
  validationFailed(
    [{ field: 'body', message: `is over the limit of ${byteSize(maxBytes)} (PROGRAM_MAX_BYTES); split the program or raise the limit` }],
    'The program document is too large.',
  );

/**
 * The whole stream as one buffer, refused as soon as it passes `maxBytes` (or declares more). A
 * refusal leaves the rest unread: the answer's hook decides whether it is read and discarded or
 * the connection closed (src/http/plugins/unread-body.ts); destroying the stream here would
 * close the connection before the refusal could be answered. The buffer's memory is a plain
 * ArrayBuffer that the worker thread parsing the document (src/workers/) gets by transfer, not a
 * copy, and gives back; the route frees it once it has answered (issue 36: a SharedArrayBuffer
 * here was freed only at the main thread's next full collection, 50 MB left behind by each plan
 * of a 50 MiB document).
 */
export async function readLimited(stream: Readable, maxBytes: number, declaredLength?: number): Promise<Buffer> {
  if (declaredLength !== undefined && declaredLength > maxBytes) throw tooLarge(maxBytes);
  // Copied into its place as it arrives (the declared length, else grown by doubling: the old
  // buffer is freed as it is grown), so the chunks and the whole are never held at once.
  let bytes = Buffer.from(new ArrayBuffer(declaredLength ?? 64 * 1024));
  let total = 0;
  for await (const chunk of stream.iterator({ destroyOnReturn: false })) {
    const piece = chunk as Buffer;
    if (total + piece.length > maxBytes) throw tooLarge(maxBytes);
    if (total + piece.length > bytes.length)
      bytes = Buffer.from((bytes.buffer as ArrayBuffer).transfer(Math.min(maxBytes, Math.max(2 * bytes.length, total + piece.length))));
    total += piece.copy(bytes, total);
    // each chunk is garbage once copied: counted with the uploads' chunks, whose scavenges free
    // them (./body-scavenges.ts); a 50 MiB document's 800 chunks were held through its whole plan
    noteBodyBytes(piece.length);
  }
  return total === bytes.length ? bytes : bytes.subarray(0, total);
}

/** The format a Content-Type names: JSON or YAML. */
export function formatOfContentType(contentType: string | undefined): ProgramFormat {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return (YAML_TYPES as readonly string[]).includes(type) ? 'yaml' : 'json';
}

/**
 * A body's bytes, held where the request hooks that walk a parsed body (the NUL and depth guard,
 * src/http/plugins/nul-guard.ts) do not look: a Buffer's every byte is an own enumerable property,
 * so a walk over a 64 MiB Buffer would visit 64 million entries. The document's strings are
 * checked for NUL by the loader instead.
 */
export class RawBody {
  readonly #bytes: Buffer;
  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }
  get bytes(): Buffer {
    return this.#bytes;
  }
}

/** Registers, in `scope` only, the parsers that leave a program document's bytes as the body (a RawBody). */
export function registerProgramBody(scope: FastifyInstance, maxBytes: number) {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser([...PROGRAM_BODY_TYPES], (request, payload, done) => {
    const length = Number(request.headers['content-length']);
    readLimited(payload, maxBytes, Number.isFinite(length) ? length : undefined).then(
      (bytes) => done(null, new RawBody(bytes)),
      (error: Error) => done(error, undefined),
    );
  });
}
