// What the credential verbs return: a stored credential without its secret hash.
import type { AccessLevel } from './scopes.ts';
import type { CredentialRecord } from '../../storage/db/repositories/credentials.ts';

export const CREDENTIAL_NAME_MAX_LENGTH = 100;

export interface CredentialView {
  id: string;
  organizationId: string;
  name: string;
  clientId: string;
  accessLevel: AccessLevel;
  region: string;
  status: 'active' | 'revoked';
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

export const credentialView = (c: CredentialRecord): CredentialView => ({
  id: c.id,
  organizationId: c.organizationId,
  name: c.name,
  clientId: c.clientId,
  accessLevel: c.accessLevel as AccessLevel,
  region: c.region,
  status: c.revokedAt === null ? 'active' : 'revoked',
  createdAt: c.createdAt,
  revokedAt: c.revokedAt,
  lastUsedAt: c.lastUsedAt,
});
