// GET /docs: the interactive API reference, rendered in the browser by Scalar from the
// /openapi.json this server serves (so it shows exactly the routes it runs). Everything it needs is
// served from node_modules (the page and its script at /docs/js/scalar.js): no CDN, no web fonts,
// no telemetry, no hosted proxy, so the reference works on a machine without internet access.
import type { FastifyInstance } from 'fastify';
import apiReference from '@scalar/fastify-api-reference';
import type { RouteDeps } from '../deps.ts';
import { quietLogLevel } from '../../../logger.ts';

export const DOCS_PATH = '/docs';

export default function docsRoute(app: FastifyInstance, { config }: RouteDeps) {
  app.register(apiReference, {
    routePrefix: DOCS_PATH,
    // its script is a 5 MB static asset, and the page a shell: logged like the console's assets
    logLevel: quietLogLevel(config.logLevel),
    configuration: {
      url: '/openapi.json',
      pageTitle: 'Compliance Data REST Service: API reference',
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      defaultOpenAllTags: true,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
    },
    hooks: {
      onRequest: async (_request, reply) => {
        reply.header('X-Frame-Options', 'DENY');
        reply.header('Referrer-Policy', 'no-referrer');
      },
    },
  });
}
