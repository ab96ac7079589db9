// JSON request bodies: Fastify's own parser (same errors, same refusal of `__proto__` and
// `constructor` keys), behind a count of the body's entries.
//
// The body limit bounds bytes, not work: 1 MiB holds over 130,000 short keys, and such an object
// costs V8 tens of milliseconds to parse (past a few thousand keys an object is a hash table),
// then the validator reports every unknown key. No body the API accepts comes near: the largest, a
// finding with 100 affected resources of three tags each, has about 700 fields and list items. So
// a body with more than MAX_JSON_ENTRIES is refused before it is parsed, after one pass over its
// text that skips strings (docs/security.md, "Malformed requests").
import type { FastifyInstance } from 'fastify';
import { validationFailed } from '../shared/errors.ts';

/** Most fields and list items a JSON body may hold, at every level together. */
export const MAX_JSON_ENTRIES = 4096;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route whose body is a list of many small records raises the count for itself (a pushed test
     * result: 1,000 resources of up to 30 entries each). Its records are objects of a few keys, so
     * the parse stays cheap; the body's byte limit still applies.
     */
    maxJsonEntries?: number;
  }
}

/**
 * Whether the JSON text holds more than `max` entries, known from its commas outside strings: a
 * non-empty object or list holds one entry more than it has commas, so `max` commas mean more than
 * `max` entries. (Brackets are not counted: a body nested too deeply is refused for its depth, by
 * src/http/plugins/nul-guard.ts.) Stops as soon as it is over.
 */
export function hasMoreEntries(text: string, max: number): boolean {
  let commas = 0;
  const end = text.length;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // skip to the closing quote: the next one not escaped by an odd run of backslashes
      let close = text.indexOf('"', i + 1);
      while (close !== -1) {
        let backslashes = 0;
        while (text.charCodeAt(close - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
        close = text.indexOf('"', close + 1);
      }
      if (close === -1) return false; // unterminated: the parser refuses it as invalid JSON
      i = close;
    } else if (c === 0x2c && ++commas >= max) {
      return true;
    }
  }
  return false;
}

export function registerJsonBody(app: FastifyInstance) {
  // Fastify's defaults for both: a body with either key is refused as invalid JSON.
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const max = request.routeOptions.config?.maxJsonEntries ?? MAX_JSON_ENTRIES;
    if (hasMoreEntries(body as string, max)) {
      return done(
        validationFailed(
          [{ field: 'body', message: `must hold at most ${max} fields and list items in all` }],
          'The body holds too many fields.',
        ),
        undefined,
      );
    }
    parse(request, body as string, done);
  });
}
