// /openapi.json is a valid OpenAPI 3.1 document that lists every route the service serves.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startServer, type TestServer } from '../harness/server.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

let server: TestServer;
let doc: any;
before(async () => {
  server = await startServer();
  doc = await (await fetch(`${server.url}/openapi.json`)).json();
});
after(() => server.close());

test('is a valid OpenAPI 3.1 document', async () => {
  assert.match(doc.openapi, /^3\.1\./);
  await SwaggerParser.validate(structuredClone(doc));
});

test('the validator used above rejects a broken document', async () => {
  const broken = structuredClone(doc);
  broken.paths['/v1/frameworks'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Missing' };
  await assert.rejects(SwaggerParser.validate(broken));
});

test('lists every route the app serves, except the document itself', () => {
  // printRoutes draws a tree (4 characters per level); a nested node prints only its own segment
  // (`/:policyId` under `/v1/policies`), so full paths are rebuilt from the ancestors' segments.
  const stack: string[] = [];
  const served: string[] = [];
  for (const line of server.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([\s│├└─]*)(\S+)( \(.*\))?$/.exec(line);
    if (!match) continue;
    stack.length = Math.max(0, match[1].length / 4 - 1);
    stack.push(match[2]);
    if (match[3]) served.push(stack.join(''));
  }
  // Web pages (the home page and its icons, the API reference, the console's HTML and assets) are not API operations.
  const pages = (p: string) =>
    p === '/' ||
    p.startsWith('/favicon.') ||
    p === '/docs' ||
    p.startsWith('/docs/') ||
    p === '/console' ||
    p.startsWith('/console/assets');
  served.splice(0, served.length, ...served.filter((p) => p.startsWith('/') && p !== '/openapi.json' && !p.includes('*') && !pages(p)));
  assert.ok(served.includes('/v1/frameworks') && served.includes('/oauth/token'), `parsed routes: ${served}`);
  for (const route of new Set(served)) {
    const openapiPath = route.replace(/:(\w+)/g, '{$1}');
    assert.ok(doc.paths[openapiPath], `route ${route} is missing from /openapi.json`);
  }
  assert.ok(doc.paths['/oauth/token'].post);
  assert.ok(doc.paths['/v1/frameworks'].get);
});

test('the console admin API is documented under its own tag, with its session and CSRF header', () => {
  assert.ok(doc.tags.some((t: any) => t.name === 'console'));
  assert.deepEqual(doc.components.securitySchemes.consoleSession, {
    type: 'apiKey',
    in: 'cookie',
    name: 'cds_console',
    description: 'Console session from POST /console/api/session.',
  });
  const operations = Object.entries<any>(doc.paths)
    .filter(([path]) => path.startsWith('/console/api/'))
    .flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ path, method, op })));
  assert.deepEqual(operations.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort(), [
    'DELETE /console/api/session',
    'DELETE /console/api/webhook-endpoints/{endpointId}',
    'GET /console/api/audit-log',
    'GET /console/api/credentials',
    'GET /console/api/overview',
    'GET /console/api/session',
    'GET /console/api/usage',
    'GET /console/api/webhook-deliveries/{deliveryId}/attempts',
    'GET /console/api/webhook-endpoints',
    'GET /console/api/webhook-endpoints/{endpointId}',
    'GET /console/api/webhook-endpoints/{endpointId}/deliveries',
    'PATCH /console/api/webhook-endpoints/{endpointId}',
    'POST /console/api/credentials',
    'POST /console/api/credentials/{credentialId}/revoke',
    'POST /console/api/program',
    'POST /console/api/session',
    'POST /console/api/webhook-deliveries/{deliveryId}/redeliver',
    'POST /console/api/webhook-endpoints',
    'POST /console/api/webhook-endpoints/{endpointId}/rotate-secret',
    'POST /console/api/webhook-endpoints/{endpointId}/test',
  ]);
  for (const { path, method, op } of operations) {
    const name = `${method} ${path}`;
    assert.deepEqual(op.tags, ['console'], name);
    assert.equal(op.responses['401'].content['application/json'].schema.$ref, '#/components/schemas/ErrorBody', name);
    const signIn = method === 'post' && path === '/console/api/session';
    if (!signIn) assert.deepEqual(op.security, [{ consoleSession: [] }], name);
    const csrf = (op.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'x-csrf-token');
    assert.equal(Boolean(csrf?.required), method !== 'get' && !signIn, `${name}: X-CSRF-Token`);
  }
});

test('every /v1 operation documents bearer auth, its scope and the spec error body', () => {
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries<any>(item)) {
      // The one public /v1 operation: the program document's JSON Schema (a format, no organization's data).
      if (path === '/v1/program/schema') {
        assert.deepEqual(op.security, [], `${method} ${path} needs no credential`);
        continue;
      }
      assert.ok(op.security?.[0]?.bearerAuth?.length > 0, `${method} ${path} names its scope`);
      for (const status of ['400', '401', '403', '429', '500', '503']) {
        const schema = op.responses[status]?.content?.['application/json']?.schema;
        assert.equal(schema?.$ref, '#/components/schemas/ErrorBody', `${method} ${path} documents ${status}`);
      }
    }
  }
});

test('the three writes document the Idempotency-Key header, their bodies, success codes and 409s', () => {
  const writes: Array<[path: string, method: string, success: string, contentType: string]> = [
    ['/v1/vulnerabilities', 'post', '201', 'application/json'],
    ['/v1/vulnerabilities/{vulnerabilityId}', 'patch', '200', 'application/json'],
    ['/v1/evidence/{evidenceId}/attachments', 'post', '201', 'multipart/form-data'],
    ['/v1/evidences/{evidenceId}/attachments', 'post', '201', 'multipart/form-data'],
  ];
  for (const [path, method, success, contentType] of writes) {
    const op = doc.paths[path]?.[method];
    assert.ok(op, `${method} ${path} is documented`);
    const header = op.parameters.find((p: any) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
    assert.ok(header?.required, `${method} ${path} requires Idempotency-Key`);
    assert.equal(header.schema.pattern, '^[A-Za-z0-9._~-]{1,128}$');
    assert.ok(op.requestBody?.content?.[contentType]?.schema, `${method} ${path} documents a ${contentType} body`);
    assert.ok(op.responses[success]?.content?.['application/json']?.schema, `${method} ${path} documents ${success}`);
    assert.equal(op.responses['409']?.content?.['application/json']?.schema?.$ref, '#/components/schemas/ErrorBody');
  }
  const create = doc.paths['/v1/vulnerabilities'].post.requestBody.content['application/json'].schema;
  assert.equal(create.additionalProperties, false);
  assert.deepEqual([...create.required].sort(), ['severity', 'status', 'title', 'vulnerabilityId']);
  assert.equal(create.properties.source, undefined, 'source is not a create field');
  const form = doc.paths['/v1/evidence/{evidenceId}/attachments'].post.requestBody.content['multipart/form-data'].schema;
  assert.equal(form.properties.files.maxItems, 5);
});

test('PUBLIC_BASE_URL names the deployment in servers and the token URL; without it, the listening address', async () => {
  const behindProxy = await startServer({ env: { PUBLIC_BASE_URL: 'https://compliance.example.com/api/' } });
  try {
    const served: any = await (await fetch(`${behindProxy.url}/openapi.json`)).json();
    assert.deepEqual(
      served.servers.map((s: any) => s.url),
      ['https://compliance.example.com/api'],
    );
    assert.equal(
      served.components.securitySchemes.bearerAuth.flows.clientCredentials.tokenUrl,
      'https://compliance.example.com/api/oauth/token',
    );
  } finally {
    await behindProxy.close();
  }
  assert.deepEqual(
    doc.servers.map((s: any) => s.url),
    [server.url],
  );
  assert.equal(doc.components.securitySchemes.bearerAuth.flows.clientCredentials.tokenUrl, `${server.url}/oauth/token`);
});

test('PUBLIC_BASE_URL must be an http(s) address without query, fragment or credentials', () => {
  for (const bad of ['ftp://example.com', 'https://example.com/?a=1', 'https://example.com/#x', 'https://u:p@example.com', 'not a url']) {
    assert.throws(() => loadConfig({ PUBLIC_BASE_URL: bad }), ConfigError, bad);
  }
  assert.equal(loadConfig({ PUBLIC_BASE_URL: 'http://10.0.0.5:8080' }).publicBaseUrl, 'http://10.0.0.5:8080');
});
