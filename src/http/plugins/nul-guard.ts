// Two checks over every request's path parameters, query and JSON body, after schema validation
// and before any handler (so before every other walk over a body, such as the idempotency
// fingerprint's key sorting):
// - depth: no API body is deeper than a few levels, and a body nested thousands of levels deep
//   (16 KB of `[`) would overflow the stack of any recursive walk. Deeper than MAX_BODY_DEPTH
//   answers 400 validation_failed naming `body`.
// - NUL: PostgreSQL text cannot hold U+0000; a value containing one would fail in the database as
//   an unexpected error, so it answers 400 validation_failed naming the field.
// The walk is iterative, so it cannot overflow the stack itself. (Multipart fields are checked
// where they are read, in src/domain/evidence/upload.ts.)
import type { FastifyInstance } from 'fastify';
import { validationFailed, type FieldIssue } from '../../shared/errors.ts';

/** Deepest nesting of arrays and objects accepted in a request (the top-level object is level 1). */
export const MAX_BODY_DEPTH = 64;

/**
 * The first problem in `value`: a string holding U+0000 (named by its path, e.g.
 * `affectedResources[0].name`), or nesting deeper than `maxDepth` (named `root`).
 */
export function findUnsafeValue(value: unknown, root: string, maxDepth = MAX_BODY_DEPTH): FieldIssue | undefined {
  // Depth-first, in document order: children are pushed in reverse.
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: item, path, depth } = stack.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return { field: path || root, message: 'must not contain the NUL character (U+0000)' };
      continue;
    }
    if (!item || typeof item !== 'object') continue;
    if (depth + 1 > maxDepth) return { field: root, message: `is nested too deeply (at most ${maxDepth} levels)` };
    const entries: Array<[string, unknown]> = Array.isArray(item)
      ? item.map((child, i) => [`${path}[${i}]`, child])
      : Object.entries(item).map(([key, child]) => [path ? `${path}.${key}` : key, child]);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i][1], path: entries[i][0], depth: depth + 1 });
  }
  return undefined;
}

export function registerNulGuard(app: FastifyInstance) {
  // A callback hook, not an async one: it runs on every request and waits for nothing.
  app.addHook('preHandler', (request, _reply, done) => {
    for (const [part, root] of [
      [request.params, 'path'],
      [request.query, 'query'],
      [request.body, 'body'],
    ] as const) {
      const issue = findUnsafeValue(part, root);
      if (issue) return done(validationFailed([issue]));
    }
    done();
  });
}
