// The stored form of a new credential and its one-time secret: made here only, so the verb and the
// test fixtures that skip the audit log cannot disagree on default names, hashing or region.
import { randomUUID } from 'node:crypto';
import type { BaseContext } from '../context.ts';
import { hashSecret, newClientId, newClientSecret } from './secrets.ts';
import type { CredentialRecord } from '../../storage/db/repositories/auth/credentials.ts';

export function newCredentialRecord(
  ctx: BaseContext,
  input: { organizationId: string; accessLevel: string; name?: string },
): { record: CredentialRecord; clientSecret: string } {
  const now = ctx.now();
  const clientSecret = newClientSecret();
  const record: CredentialRecord = {
    id: randomUUID(),
    organizationId: input.organizationId,
    name: input.name || (input.accessLevel === 'read_only' ? 'Read Only' : 'Read & Write'),
    clientId: newClientId(),
    secretHash: hashSecret(clientSecret),
    accessLevel: input.accessLevel,
    region: ctx.region,
    createdAt: now,
    accessLevelChangedAt: now,
    revokedAt: null,
    lastUsedAt: null,
  };
  return { record, clientSecret };
}
