// The shapes of what the console's verbs return: the signed-in session, API usage, the compliance
// overview and the audit log. The console's types (src/console/web/types.ts) are generated from
// these and from the credential shapes in src/domain/auth/schema.ts: npm run generate.
import { Type, type Static } from 'typebox';
import { Credential } from '../auth/schema.ts';
import { FrameworkProgress } from '../frameworks/schema.ts';
import { AUDIT_ACTIONS } from './audit.ts';

export const Session = Type.Object({
  admin: Type.Object({ id: Type.String(), email: Type.String() }),
  organization: Type.Object({ id: Type.String(), name: Type.String() }),
  csrfToken: Type.String({ description: 'The CSRF token: send it with every request that changes something.' }),
  expiresAt: Type.Integer({
    description: 'Epoch ms at which the session ends unless used again (idle time-out), capped by its absolute end.',
  }),
});

/** One hour of one credential's use. */
export const UsageBucket = Type.Object({
  start: Type.Integer({ description: 'Epoch ms of the start of the hour' }),
  requests: Type.Integer({ description: 'Authenticated API requests, rate-limited ones included' }),
  rateLimited: Type.Integer({ description: 'Of those, requests refused by the rate limit' }),
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

/** A framework and its progress, as the framework list computes it. */
export const OverviewFramework = Type.Object({
  frameworkId: Type.String(),
  frameworkName: Type.String(),
  complianceProgress: FrameworkProgress,
});

export const Overview = Type.Object({
  frameworks: Type.Array(OverviewFramework),
});

export const AuditEntry = Type.Object({
  id: Type.String(),
  at: Type.Integer({ description: 'Epoch ms' }),
  actor: Type.Object({
    type: Type.Enum(['admin', 'cli', 'system']),
    label: Type.String({ description: "The administrator's email, the operator and host for cds, or what the service did on its own" }),
  }),
  action: Type.Enum([...AUDIT_ACTIONS]),
  target: Type.Union([Type.Object({ type: Type.String(), id: Type.String(), label: Type.String() }), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
});

export type Session = Static<typeof Session>;
/** The session as the domain holds it: the shape above plus its ID, which the console never sees. */
export type SignedInAdmin = Session & { sessionId: string };
export type UsageBucket = Static<typeof UsageBucket>;
export type CredentialUsage = Static<typeof CredentialUsage>;
export type Usage = Static<typeof Usage>;
export type OverviewFramework = Static<typeof OverviewFramework>;
export type Overview = Static<typeof Overview>;
export type AuditEntry = Static<typeof AuditEntry>;
