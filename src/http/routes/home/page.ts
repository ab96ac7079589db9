// GET /: a small page for whoever opens the server's address in a browser, linking what is there:
// the developer console, the API reference and the OpenAPI document. Static, no script.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { CONSOLE_CSP } from '../console/pages.ts';
import type { RouteDeps } from '../deps.ts';
import { DOCS_PATH } from '../docs/reference.ts';

const STYLE = `body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1f2933; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; }
li { margin: .5rem 0; }
code { background: #f0f2f5; padding: 0 .25rem; border-radius: 3px; }
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Compliance Data REST Service</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Compliance Data REST Service</h1>
<p>This server answers the Compliance Data REST interface under <code>/v1</code>, with access tokens from <code>POST /oauth/token</code>.</p>
<ul>
<li><a href="/console">Developer console</a>: API credentials, usage and the audit log of your organization</li>
<li><a href="${DOCS_PATH}">API reference</a>: every operation, its parameters and answers</li>
<li><a href="/openapi.json">OpenAPI document</a> (JSON, OpenAPI 3.1), for code generators and API tools</li>
</ul>
</body>
</html>
`;

// The console's policy, with this page's one style block allowed by its hash (no inline style
// or script of any other content can run).
const HOME_CSP = CONSOLE_CSP.replace("style-src 'self'", `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`);

export default function homePageRoute(app: FastifyInstance, _deps: RouteDeps) {
  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('Content-Security-Policy', HOME_CSP);
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('Cache-Control', 'no-cache');
    return reply.type('text/html; charset=utf-8').send(PAGE);
  });
}
