// The console's web pages: one HTML shell for every /console path (the front end routes on the
// client) and its content-hashed assets. The production build serves the bundle made by
// `npm run build` (console/prebuilt-assets.ts); from the source, the bundle is built from
// src/console/web on first use, once per process. Either way a deployment serves exactly the
// source it runs.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ConsoleAssets } from '../../../console/assets.ts';
import { notFound } from '../../../shared/errors.ts';
import type { RouteDeps } from '../deps.ts';
import { quietLogLevel } from '../../../logger.ts';

export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

let assets: Promise<ConsoleAssets> | undefined;
/** Starts the build early (main.ts) so the first visitor does not wait for it. */
export function warmConsoleAssets(): Promise<ConsoleAssets> {
  const building =
    assets ??
    // Loaded on first use: a process that never serves the console never loads the bundler, and
    // one with a prebuilt bundle never does.
    import('../../../console/prebuilt-assets.ts')
      .then(
        async ({ readPrebuiltAssets }) => (await readPrebuiltAssets()) ?? (await import('../../../console/assets.ts')).buildConsoleAssets(),
      )
      .catch((err: unknown) => {
        assets = undefined; // let a later request try again
        throw err;
      });
  assets = building;
  return building;
}

function pageHeaders(reply: FastifyReply) {
  reply.header('Content-Security-Policy', CONSOLE_CSP);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'no-referrer');
}

export default function consolePagesRoute(app: FastifyInstance, { config }: RouteDeps) {
  const shell = async (_request: unknown, reply: FastifyReply) => {
    const { html } = await warmConsoleAssets();
    pageHeaders(reply);
    reply.header('Cache-Control', 'no-cache');
    return reply.type('text/html; charset=utf-8').send(html);
  };
  app.get('/console', { schema: { hide: true } }, shell);
  app.get('/console/*', { schema: { hide: true } }, async (request, reply) => {
    // Unknown admin API paths answer the API's 404, not the page.
    if (request.url.startsWith('/console/api/') || request.url === '/console/api') throw notFound('Console API route');
    return shell(request, reply);
  });
  // content-hashed files fetched with every page: their requests are logged at debug only
  app.get<{ Params: { file: string } }>(
    '/console/assets/:file',
    { schema: { hide: true }, logLevel: quietLogLevel(config.logLevel) },
    async (request, reply) => {
      const file = (await warmConsoleAssets()).files.get(request.params.file);
      if (!file) throw notFound('Asset');
      pageHeaders(reply);
      reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      return reply.type(file.contentType).send(file.body);
    },
  );
}
