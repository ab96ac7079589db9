// PostgreSQL text cannot hold the NUL character (U+0000): a value containing one would fail in
// the database as an unexpected error. Every /v1 request's path parameters, query and JSON body
// are checked after schema validation, and such a value answers 400 validation_failed naming it.
// (Multipart fields are checked where they are read, in src/domain/evidence/upload.ts.)
import type { FastifyInstance } from 'fastify';
import { validationFailed } from '../../domain/errors.ts';

/** The path (`affectedResources[0].name`) of the first string holding U+0000, if any. */
export function findNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = findNul(item, path ? `${path}.${key}` : key);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export function registerNulGuard(app: FastifyInstance) {
  app.addHook('preHandler', async (request) => {
    for (const part of [request.params, request.query, request.body]) {
      const field = findNul(part);
      if (field !== undefined) throw validationFailed([{ field: field || 'body', message: 'must not contain the NUL character (U+0000)' }]);
    }
  });
}
