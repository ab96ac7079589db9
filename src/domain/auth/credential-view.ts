// What the credential verbs return: a stored credential without its secret hash.
import type { AccessLevel } from './scopes.ts';
import type { Credential, CredentialView } from './schema.ts';
import type { CredentialRecord } from '../../storage/db/repositories/auth/credentials.ts';

export const CREDENTIAL_NAME_MAX_LENGTH = 100;

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

/** The credential as the console API lists it (no organization, region or secret): the data of credential events. */
export function consoleCredential(c: CredentialRecord): Credential {
  const { organizationId: _organization, region: _region, ...credential } = credentialView(c);
  return credential;
}
