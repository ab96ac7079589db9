// Shapes of the console's admin API (/console/api), shown in the OpenAPI document under the
// "console" tag. Errors use the same body as /v1. The console's types (src/console/web/types.ts)
// are generated from these: npm run generate.
import { Type, type Static } from 'typebox';
import { AUDIT_ACTIONS } from '../../../domain/console/audit.ts';
import { FrameworkProgress } from '../../../domain/frameworks/schema.ts';

export const Session = Type.Object({
  admin: Type.Object({ id: Type.String(), email: Type.String() }),
  organization: Type.Object({ id: Type.String(), name: Type.String() }),
  csrfToken: Type.String({ description: 'Send as the X-CSRF-Token header on every request that changes something.' }),
  expiresAt: Type.Integer({ description: 'Epoch ms at which the session ends unless used again (idle time-out), capped by its absolute end.' }),
});

export const Credential = Type.Object({
  id: Type.String(),
  name: Type.String(),
  clientId: Type.String(),
  accessLevel: Type.Enum(['read_only', 'read_write']),
  status: Type.Enum(['active', 'revoked']),
  createdAt: Type.Integer(),
  lastUsedAt: Type.Union([Type.Integer(), Type.Null()]),
  revokedAt: Type.Union([Type.Integer(), Type.Null()]),
});

export const NewCredential = Type.Intersect([
  Credential,
  Type.Object({ clientSecret: Type.String({ description: 'Shown in this response only; it cannot be retrieved again.' }) }),
]);

/** One hour of one credential's use. */
export const UsageBucket = Type.Object({
  start: Type.Integer({ description: 'Epoch ms of the start of the hour' }),
  requests: Type.Integer({ description: 'Authenticated /v1 requests, rate-limited ones included' }),
  rateLimited: Type.Integer({ description: 'Of those, requests refused with 429' }),
});

export const CredentialUsage = Type.Object({
  credentialId: Type.String(),
  name: Type.String(),
  clientId: Type.String(),
  status: Credential.properties.status,
  totals: Type.Object({ requests: Type.Integer(), rateLimited: Type.Integer() }),
  buckets: Type.Array(UsageBucket, { description: '24 hourly buckets, oldest first; the last is the current hour' }),
});

export const Usage = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  bucketMs: Type.Integer(),
  credentials: Type.Array(CredentialUsage),
});

/** A framework and its progress, as GET /v1/frameworks computes it. */
export const OverviewFramework = Type.Object({ frameworkId: Type.String(), frameworkName: Type.String(), complianceProgress: FrameworkProgress });

export const Overview = Type.Object({
  frameworks: Type.Array(OverviewFramework),
});

export const AuditEntry = Type.Object({
  id: Type.String(),
  at: Type.Integer({ description: 'Epoch ms' }),
  actor: Type.Object({ type: Type.Enum(['admin', 'cli']), label: Type.String({ description: 'The administrator\'s email, or the operator and host for cds' }) }),
  action: Type.Enum([...AUDIT_ACTIONS]),
  target: Type.Union([Type.Object({ type: Type.String(), id: Type.String(), label: Type.String() }), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
});

export const CsrfHeaders = Type.Object({
  'x-csrf-token': Type.String({ description: 'The csrfToken of the session.' }),
});

export const CONSOLE_SECURITY = [{ consoleSession: [] }];

export const consoleErrors = (extra: Record<number, string> = {}) => {
  const base: Record<number, string> = {
    400: 'validation_failed: the body or a parameter is invalid (details name it)',
    401: 'unauthorized: not signed in, or the session has ended',
    403: 'forbidden: the X-CSRF-Token header is missing or wrong, or the request is cross-site',
    500: 'internal_error',
    503: 'upstream_unavailable: a dependency is down',
    ...extra,
  };
  return Object.fromEntries(Object.entries(base).map(([status, description]) => [status, { description, $ref: 'ErrorBody#' }]));
};

export const credentialView = (c: Static<typeof Credential>): Static<typeof Credential> => ({
  id: c.id,
  name: c.name,
  clientId: c.clientId,
  accessLevel: c.accessLevel,
  status: c.status,
  createdAt: c.createdAt,
  lastUsedAt: c.lastUsedAt,
  revokedAt: c.revokedAt,
});
