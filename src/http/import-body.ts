// The body of an import (POST /v1/vulnerabilities/imports, POST /v1/tests/results/imports; both
// extensions): a tool's file streamed into its import without being held. The file is either the
// raw request body (any content type but multipart; `format` and `scope` in the query) or the
// `file` part of a multipart/form-data body whose text fields `format` and `scope` come first. Each
// route lives in its own plugin scope that leaves every body unparsed (registerUnparsed).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ServiceError, validationFailed, type FieldIssue } from '../shared/errors.ts';
import type { UploadPart } from '../domain/evidence/upload.ts';
import type { Context, SystemContext } from '../domain/context.ts';
import type { IdempotencyInput, Outcome } from '../domain/idempotency/run.ts';
import { idempotencyOf, sendOutcome, WriteHeaders } from './idempotency.ts';
import { requestContext } from './plugins/auth.ts';
import { multipartParts } from './multipart.ts';

export const ImportHeaders = Type.Object({
  ...WriteHeaders.properties,
  prefer: Type.Optional(
    Type.String({
      maxLength: 1024,
      description: 'Optional. `respond-async` (RFC 7240): import as a job (202) whatever the file’s size.',
    }),
  ),
});

/** `Prefer: respond-async` (RFC 7240), among other preferences, in one header or several. */
export function prefersAsync(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.some((value) => value.split(',').some((pref) => /^\s*respond-async\s*(?:;|$)/i.test(pref)));
}

const incomplete = () =>
  validationFailed([{ field: 'body', message: 'is not complete: the request ended before the file did' }], 'The body ended early.');

/** The body's bytes; a body cut short (the client went away) is refused like a cut multipart body. */
async function* bytesOf(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    yield* source;
  } catch (err) {
    throw err instanceof ServiceError ? err : incomplete();
  }
}

export interface FileInput {
  format?: string;
  scope?: string;
  body: AsyncIterable<Uint8Array>;
  /** ends the multipart reading when the import stops early */
  done?: () => Promise<unknown>;
}

/** The text fields, then the `file` part's bytes, then nothing more. */
async function multipartInput(request: FastifyRequest): Promise<FileInput> {
  const parts = multipartParts(request.raw, { files: 1, fields: 3, fieldBytes: 1024 })[Symbol.asyncIterator]();
  const done = () => parts.return(undefined);
  const fields: Record<string, string> = {};
  let file: (UploadPart & { kind: 'file' }) | undefined;
  try {
    while (!file) {
      const step = await parts.next();
      if (step.done) break;
      const part = step.value;
      if (part.kind === 'file') {
        if (part.name !== 'file')
          throw validationFailed([
            { field: part.name || 'body', message: 'is not an accepted part; send the file in a part named "file"' },
          ]);
        file = part;
      } else {
        if (part.name !== 'format' && part.name !== 'scope')
          throw validationFailed([{ field: part.name || 'body', message: 'is not an accepted part (format, scope, file)' }]);
        if (part.truncated) throw validationFailed([{ field: part.name, message: 'is too long' }]);
        if (fields[part.name] !== undefined) throw validationFailed([{ field: part.name, message: 'must be given once' }]);
        fields[part.name] = part.value;
      }
    }
  } catch (err) {
    await done();
    throw err;
  }
  if (!file) {
    await done();
    throw validationFailed([{ field: 'file', message: 'is required: send the file in a part named "file", after format and scope' }]);
  }
  const stream = file.stream;
  async function* body(): AsyncGenerator<Uint8Array> {
    yield* bytesOf(stream);
    const rest = await parts.next();
    if (!rest.done)
      throw validationFailed([
        { field: rest.value.name || 'body', message: 'is not accepted after the file: send format and scope first, and one file' },
      ]);
  }
  return { format: fields.format, scope: fields.scope, body: body(), done };
}

/** The file of the request, raw or multipart (not destroyed when the import stops early: the refusal must still be answered on it). */
export async function fileInputOf(request: FastifyRequest): Promise<FileInput> {
  const multipart = /^multipart\//i.test(request.headers['content-type'] ?? '');
  return multipart ? await multipartInput(request) : { body: bytesOf(request.raw.iterator({ destroyOnReturn: false })) };
}

/** `format` and `scope`, from the form or the query, the same when both give one; `format` required (`names` lists them). */
export function formatAndScope(
  file: FileInput,
  query: { format?: string; scope?: string },
  names: string,
): { format: string; scope?: string } {
  for (const field of ['format', 'scope'] as const) {
    if (file[field] !== undefined && query[field] !== undefined && file[field] !== query[field])
      throw validationFailed([{ field, message: 'is given in the query and in the form with different values; send it once' }]);
  }
  const format = file.format ?? query.format;
  if (format === undefined) throw validationFailed([{ field: 'format', message: `is required (${names})` }]);
  return { format, scope: file.scope ?? query.scope };
}

/** Registers an import route in a plugin scope of its own that leaves every body unread: the handler streams it. */
export function registerUnparsed(app: FastifyInstance, register: (scope: FastifyInstance) => void): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    register(scope);
  });
}

/** How an import route finds its formats: their names for a sentence, one by name, the refusal of an unknown one. */
export interface FormatRegistry<F> {
  names(): string;
  find(name: string): F | undefined;
  unknown(name: string): FieldIssue;
}

/** What an import verb takes from its door. */
export interface ImportRequest<F> {
  format: F;
  scope?: string;
  body: AsyncIterable<Uint8Array>;
  idempotency: IdempotencyInput;
  respondAsync: boolean;
}

/**
 * The handler of an import route: the file (raw or multipart), its format looked up in the
 * registry and handed to the verb, the outcome sent (202 with the job's Location when it became
 * one), the multipart reading ended however it ends.
 */
export function importHandler<F>(
  system: SystemContext,
  path: string,
  formats: FormatRegistry<F>,
  verb: (args: { ctx: Context; input: ImportRequest<F> }) => Promise<Outcome<unknown>>,
) {
  return async (request: FastifyRequest<{ Querystring: { format?: string; scope?: string } }>, reply: FastifyReply) => {
    const ctx = requestContext(system, request);
    const file = await fileInputOf(request);
    try {
      const { format: name, scope } = formatAndScope(file, request.query, formats.names());
      const format = formats.find(name);
      if (!format) throw validationFailed([formats.unknown(name)]);
      const outcome = await verb({
        ctx,
        input: {
          format,
          scope,
          body: file.body,
          idempotency: idempotencyOf(request, () => path),
          respondAsync: prefersAsync(request.headers.prefer),
        },
      });
      return sendOutcome(request, reply, outcome, (job) => `/v1/jobs/${(job as { id: string }).id}`);
    } finally {
      await file.done?.();
    }
  };
}
