// GET /: the landing page for whoever opens the server's address in a browser: what this service
// is, where the developer console, the API reference and the OpenAPI document are, and the first
// request (a token, then a list) with this server's address filled in, ready to paste. Static and
// self-contained: one style block, no script, nothing fetched from elsewhere.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { CONSOLE_CSP } from '../console/pages.ts';
import type { RouteDeps } from '../deps.ts';
import { DOCS_PATH } from '../docs/reference.ts';
import { listeningBaseUrl } from '../../openapi/document.ts';

const STYLE = `:root { color-scheme: light; --text: #1b1f24; --muted: #545d68; --border: #d0d5dc; --accent: #0b5cad; --surface: #fff; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--text); background: #f5f6f8; margin: 0; }
main { max-width: 48rem; margin: 0 auto; padding: 2.5rem 1.25rem 3rem; }
header { display: flex; align-items: center; gap: .75rem; }
header img { width: 2.5rem; height: 2.5rem; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: 0; }
h2 { font-size: 1.2rem; margin: 2rem 0 .75rem; }
.lead { font-size: 1.1rem; color: var(--muted); margin: 1rem 0 0; }
.links { display: grid; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); gap: 1rem; padding: 0; margin: 0; list-style: none; }
.links a { display: block; height: 100%; box-sizing: border-box; padding: 1rem 1.25rem; background: var(--surface); border: 1px solid var(--border); border-radius: 6px; color: inherit; text-decoration: none; }
.links a:hover, .links a:focus-visible { border-color: var(--accent); outline: 2px solid var(--accent); outline-offset: -1px; }
.links strong { display: block; color: var(--accent); }
.links span { color: var(--muted); font-size: .9375rem; }
ol { padding-left: 1.25rem; }
li { margin: .5rem 0; }
pre { background: #1b1f24; color: #f5f6f8; padding: .875rem 1rem; border-radius: 6px; overflow-x: auto; font-size: .875rem; line-height: 1.45; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
p code, li > code { background: #e8ebef; padding: 0 .25rem; border-radius: 3px; }
`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The first request, as lines a shell runs as they are (test/e2e/home.test.ts runs them). */
function firstRequest(baseUrl: string): string[] {
  return [
    `TOKEN=$(jq -n --arg id "$CLIENT_ID" --arg secret "$CLIENT_SECRET" \\`,
    `    '{grant_type: "client_credentials", client_id: $id, client_secret: $secret}' \\`,
    `  | curl -s ${baseUrl}/oauth/token \\`,
    `      -H 'Content-Type: application/json' -d @- \\`,
    '  | jq -r .access_token)',
    `curl -s ${baseUrl}/v1/frameworks -H "Authorization: Bearer $TOKEN"`,
  ];
}

function page(baseUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Compliance Data REST Service</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>${STYLE}</style>
</head>
<body>
<main>
<header><img src="/favicon.svg" alt=""><h1>Compliance Data REST Service</h1></header>
<p class="lead">A REST API for your organization's compliance data: frameworks and their progress, controls, policies, evidence
(with file uploads), tests and vulnerability findings. Every request is made with an OAuth access token, and every answer is
JSON under <code>/v1</code>.</p>

<h2>Where to go</h2>
<ul class="links">
<li><a href="/console"><strong>Developer console</strong><span>Sign in to create API credentials, see usage, manage webhooks and read the audit log.</span></a></li>
<li><a href="${DOCS_PATH}"><strong>API reference</strong><span>Every operation, its parameters, answers and errors, with examples.</span></a></li>
<li><a href="/openapi.json"><strong>OpenAPI document</strong><span>OpenAPI 3.1 (JSON), for code generators, Postman and other API tools.</span></a></li>
</ul>

<h2 id="first-request">Your first request</h2>
<ol>
<li>In the <a href="/console">developer console</a>, create a credential. Its client ID and secret are shown once:
<pre><code>export CLIENT_ID=cds_id_…  CLIENT_SECRET=…</code></pre></li>
<li>Exchange them for an access token (valid one hour), then list your frameworks with it.
<code>jq</code> writes the request and reads the token:
<pre><code>${escapeHtml(firstRequest(baseUrl).join('\n'))}</code></pre></li>
</ol>
<p>The answer is <code>{"data": [...], "meta": {"requestId": "..."}}</code>. The <a href="${DOCS_PATH}">API reference</a> lists
every other list and filter.</p>
</main>
</body>
</html>
`;
}

// The console's policy, with this page's one style block allowed by its hash (no inline style
// or script of any other content can run).
const HOME_CSP = CONSOLE_CSP.replace("style-src 'self'", `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`);

export default function homePageRoute(app: FastifyInstance, { config }: RouteDeps) {
  // Built on first request: the listening address is known only once the server listens.
  let html: string | undefined;
  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    html ??= page(config.publicBaseUrl ?? listeningBaseUrl(app.server.address(), config));
    reply.header('Content-Security-Policy', HOME_CSP);
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('Cache-Control', 'no-cache');
    return reply.type('text/html; charset=utf-8').send(html);
  });
}
