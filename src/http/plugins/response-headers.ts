// Headers on every answer: `X-Content-Type-Options: nosniff` (a browser must never run a JSON
// error or an uploaded name as HTML or script), and on API answers (/v1, /oauth/token,
// /console/api) `Cache-Control: no-store`, as they carry an organization's data, tokens or a
// session: no browser or shared cache may keep them. The console's pages and assets set their own
// caching (src/http/routes/console/pages.ts).
import type { FastifyInstance } from 'fastify';

const API_PATH = /^\/(?:v1|oauth\/token|console\/api)(?:[/?]|$)/;
const API_HEADERS = Object.freeze({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
const OTHER_HEADERS = Object.freeze({ 'X-Content-Type-Options': 'nosniff' });

/** The headers every answer to `url` (path and query) carries, besides X-Request-Id. */
export function edgeHeaders(url: string): Readonly<Record<string, string>> {
  return API_PATH.test(url) ? API_HEADERS : OTHER_HEADERS;
}

/** Also X-Request-Id. A callback hook, not an async one: it runs on every request and waits for nothing. */
export function registerResponseHeaders(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    reply.headers(edgeHeaders(request.url));
    done();
  });
}
