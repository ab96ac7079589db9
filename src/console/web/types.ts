// Shapes of the admin API's `data` payloads (see /console/api). Kept free of DOM
// and Preact imports so the root (Node) type-check can include this file as well.

export interface Session {
  admin: { id: string; email: string };
  organization: { id: string; name: string };
  csrfToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export type AccessLevel = 'read_only' | 'read_write';
export type CredentialStatus = 'active' | 'revoked';

export interface Credential {
  id: string;
  name: string;
  clientId: string;
  accessLevel: AccessLevel;
  status: CredentialStatus;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface NewCredential extends Credential {
  clientSecret: string;
}

export interface UsageBucket {
  start: number;
  requests: number;
  rateLimited: number;
}

export interface CredentialUsage {
  credentialId: string;
  name: string;
  clientId: string;
  status: CredentialStatus;
  totals: { requests: number; rateLimited: number };
  /** 24 hourly buckets, oldest first. */
  buckets: UsageBucket[];
}

export interface Usage {
  from: number;
  to: number;
  bucketMs: number;
  credentials: CredentialUsage[];
}

export interface FrameworkProgress {
  frameworkId: string;
  frameworkName: string;
  complianceProgress: {
    controls: { compliant: number; total: number; percentage: number };
    policies: { published: number; total: number; percentage: number };
    evidence: { uploaded: number; total: number; percentage: number };
    tests: { passing: number; total: number; percentage: number };
  };
}

export interface Overview {
  frameworks: FrameworkProgress[];
}

export interface AuditEntry {
  id: string;
  at: number;
  actor: { type: 'admin' | 'cli'; label: string };
  action: string;
  target: { type: string; id: string; label: string } | null;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: string | null;
}

export interface FieldError {
  field: string;
  message: string;
}
