// The OpenAPI document served at /openapi.json. @fastify/swagger builds the paths from the route
// schemas (each route names its operationId, description, security and responses); this file adds
// what holds across routes: `info`, the security schemes with every scope, the response headers as
// reusable components and where each is sent, and `servers` with the deployment's address.
import type { FastifyDynamicSwaggerOptions, SwaggerTransformObject } from '@fastify/swagger';
import { RESOURCES } from '../../domain/auth/scopes.ts';
import { webhookItems } from './webhooks.ts';

type OpenApiOptions = NonNullable<FastifyDynamicSwaggerOptions['openapi']>;
// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON walked by path
type Json = Record<string, any>;

const PLURAL: Record<(typeof RESOURCES)[number], string> = {
  framework: 'frameworks',
  control: 'controls',
  policy: 'policies',
  evidence: 'evidence records',
  test: 'tests',
  vulnerability: 'vulnerability findings',
};

/** What each write scope allows beyond reading, where the interface has writes of that resource. */
const WRITES: Partial<Record<(typeof RESOURCES)[number], string>> = {
  evidence: 'Upload evidence attachments',
  vulnerability: 'Create and update vulnerability findings',
};

/** Every scope a token can carry, described (the spec's list: `{resource}:{action}`). */
export function scopeDescriptions(): Record<string, string> {
  const scopes: Record<string, string> = {};
  for (const r of RESOURCES) scopes[`${r}:read`] = `Read ${PLURAL[r]}.`;
  for (const r of RESOURCES) {
    const write = WRITES[r];
    scopes[`${r}:write`] = write
      ? `${write}; also reads ${PLURAL[r]} (never other resources).`
      : `Accepted in place of ${r}:read (reads ${PLURAL[r]}); the interface has no ${r} writes.`;
  }
  return scopes;
}

/** Response headers, each defined once and referenced from the responses that send it. */
export const HEADERS = {
  'X-Request-Id': {
    description: 'Unique ID of this request; equals `meta.requestId` of the body. Quote it when reporting a problem.',
    required: true,
    schema: { type: 'string', maxLength: 64 },
  },
  'X-RateLimit-Limit': {
    description: 'Maximum requests in the current window (per credential; per client address for failed authentication).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'When the current window resets: Unix time in seconds.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  Location: {
    description: 'Path of the created resource (the get-one of it); on a 202, of the job to follow (`GET /v1/jobs/{jobId}`).',
    required: true,
    schema: { type: 'string', maxLength: 2048 },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored response of an earlier request with the same `Idempotency-Key` and body (the write was not repeated); absent otherwise.',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': {
    description:
      'RFC 6750 challenge: `Bearer` when the request carried no bearer token (no Authorization header, or another scheme); `Bearer error="invalid_token", error_description="…"` when the token is malformed, unknown, expired, stale or revoked.',
    required: true,
    schema: { type: 'string', maxLength: 256 },
  },
} as const;

type HeaderName = keyof typeof HEADERS;

/** Paths of the interface itself; every other operation is an extension (console, health). */
const INTERFACE_PATH = /^\/(?:v1\/|oauth\/token$)/;

/** Operations under /v1 that the interface does not describe: extensions all the same. */
const V1_EXTENSIONS = new Set([
  'listEvents',
  // a live program (moves)
  'recordTestResult',
  'approveEvidence',
  'approveEvidencePlural',
  'requestEvidenceRevision',
  'requestEvidenceRevisionPlural',
  'updateEvidence',
  'updateEvidencePlural',
  'submitPolicy',
  'approvePolicy',
  'publishPolicy',
  'requestPolicyReview',
  'updatePolicy',
  'updateControl',
  // scanner imports, and the jobs that run the large ones
  'importVulnerabilities',
  // checkers' reports as test runs (issue 38)
  'importTestResults',
  'getJob',
  // program documents
  'applyProgram',
  'exportProgram',
  'getProgramSchema',
]);

/** Writes whose 201 names the created resource in `Location`. */
const LOCATION_ON_CREATE = new Set(['createVulnerability']);

/** The headers `status` of the operation at `path` sends, in the order they are listed. */
function headersOf(path: string, status: string, op: Json): HeaderName[] {
  const names: HeaderName[] = ['X-Request-Id'];
  const code = Number(status);
  const v1 = path.startsWith('/v1/');
  // After the token (or the client's secret) is checked every answer counts and says so; a request
  // refused before that (malformed, or a dependency down) does not.
  const counted = v1 ? (code >= 200 && code < 300) || [401, 403, 404, 409, 429].includes(code) : [200, 401, 429].includes(code);
  // An operation without security (GET /v1/program/schema) counts against no credential.
  const isPublic = Array.isArray(op.security) && op.security.length === 0;
  if (INTERFACE_PATH.test(path) && counted && !isPublic) names.push('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
  if (code === 429) names.push('Retry-After');
  if (code === 401 && v1) names.push('WWW-Authenticate');
  if ((code === 201 && LOCATION_ON_CREATE.has(op.operationId)) || code === 202) names.push('Location');
  const idempotent = (op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  if (idempotent && code >= 200 && code < 300) names.push('Idempotent-Replayed');
  return names;
}

/** @fastify/swagger's `openapi` option: everything but the paths. */
export function openApiOptions(): OpenApiOptions {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Compliance Data REST Service',
      version: '1.0.0',
      description:
        'Frameworks, controls, policies, evidence, tests and vulnerability findings of an organization. ' +
        'Authenticate with the OAuth 2.0 client-credentials grant at `POST /oauth/token`, then send the access token as ' +
        '`Authorization: Bearer <token>`. Operations tagged `console` are an extension: the developer console’s admin API.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      contact: { name: 'The operators of this deployment' },
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'oauth2',
          description:
            'OAuth 2.0 client credentials: exchange `client_id` and `client_secret` at `POST /oauth/token`, then send ' +
            '`Authorization: Bearer <access_token>` (tokens live 3600 s). A 401 carries `WWW-Authenticate: Bearer`.',
          flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: scopeDescriptions() } },
        },
        consoleSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'cds_console',
          description: 'Console session from POST /console/api/session.',
        },
      },
      headers: HEADERS as unknown as Json,
    },
    tags: [
      { name: 'auth', description: 'OAuth 2.0 client-credentials token endpoint' },
      { name: 'frameworks', description: 'Compliance frameworks and their progress' },
      { name: 'controls', description: 'Controls with their computed compliance status' },
      { name: 'policies', description: 'Policies' },
      { name: 'evidence', description: 'Evidence records and their attachments' },
      { name: 'tests', description: 'Automated and cloud tests with their flagged resources' },
      { name: 'vulnerabilities', description: 'Third-party vulnerability findings' },
      {
        name: 'jobs',
        description:
          'Extension: bulk work accepted with 202 (a large scanner import) and followed to its end; readable 24 hours after it finished',
      },
      {
        name: 'events',
        description:
          'Extension (issue 15): the change events feed. Every write records its events in its own transaction; GET /v1/events gives them in commit order.',
      },
      {
        name: 'program',
        description:
          'Extension (issue 25): the organization’s program as one document (YAML or JSON), planned, applied and exported. Its JSON Schema: GET /v1/program/schema (docs/program-documents.md).',
      },
      { name: 'operations', description: 'Liveness and readiness (metrics are on the operations listener, OPS_PORT)' },
      {
        name: 'console',
        description:
          "Extension: the developer console's admin API (/console/api): administrators sign in with email and password, then manage " +
          'API credentials, and read usage, the compliance overview and the audit log. Session in an HttpOnly cookie; ' +
          'every change needs the X-CSRF-Token header.',
      },
    ],
  };
}

/**
 * Operations that read their body as a stream, as the file itself: the route's schema can only
 * describe the multipart form, so the raw media types are written here (the form stays).
 */
const RAW_BODIES: Record<string, Json> = {
  importVulnerabilities: {
    'application/json': {
      schema: {
        description:
          "The scanner's file exactly as the tool wrote it (SARIF 2.1.0, Trivy, Grype, OSV-Scanner, CycloneDX or OpenVEX JSON); the query's `format` names which.",
      },
    },
    'application/octet-stream': { schema: { type: 'string', format: 'binary', description: 'The same file, sent as bytes.' } },
  },
};

/**
 * @fastify/swagger's `transformObject`: adds the response headers to every response, and marks
 * the operations beyond the interface (and the /v1 extensions, V1_EXTENSIONS) with `x-extension: true`.
 */
export const decorateDocument: SwaggerTransformObject = (input) => {
  const openapiObject = ('openapiObject' in input ? input.openapiObject : input.swaggerObject) as Json;
  for (const [path, item] of Object.entries<Json>(openapiObject.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      if (!INTERFACE_PATH.test(path) || V1_EXTENSIONS.has(op.operationId)) op['x-extension'] = true;
      const raw = RAW_BODIES[op.operationId];
      if (raw && op.requestBody?.content) {
        const { 'multipart/form-data': form } = op.requestBody.content;
        op.requestBody.content = { ...raw, ...(form ? { 'multipart/form-data': form } : {}) };
      }
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        const refs = Object.fromEntries(headersOf(path, status, op).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
        response.headers = { ...refs, ...response.headers };
      }
    }
  }
  openapiObject.webhooks = webhookItems();
  return openapiObject;
};

/**
 * The document as served: `servers` and the token URL absolute on `baseUrl` (PUBLIC_BASE_URL, else
 * the address the API listens on), so a tool importing it needs nothing else.
 */
export function servedDocument(document: Json, baseUrl: string): Json {
  const bearer = document.components.securitySchemes.bearerAuth;
  return {
    ...document,
    servers: [{ url: baseUrl, description: 'This deployment' }],
    components: {
      ...document.components,
      securitySchemes: {
        ...document.components.securitySchemes,
        bearerAuth: { ...bearer, flows: { clientCredentials: { ...bearer.flows.clientCredentials, tokenUrl: `${baseUrl}/oauth/token` } } },
      },
    },
  };
}

/** `http://host:port` of a listening address; the wildcard addresses become their loopback. */
export function listeningBaseUrl(
  address: { address: string; port: number } | string | null,
  fallback: { host: string; port: number },
): string {
  const { address: host, port } = address && typeof address === 'object' ? address : { address: fallback.host, port: fallback.port };
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
