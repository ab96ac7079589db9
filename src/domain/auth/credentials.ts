// API credentials: created and revoked by an organization administrator, in the console or with
// `cds`. The secret is returned once, at creation, and only its hash is stored. When an audit
// actor is given, the change and its audit entry commit together.
import { randomUUID } from 'node:crypto';
import { DEFAULT_MAX_ACTIVE_CREDENTIALS } from '../../config.ts';
import type { BaseContext } from '../context.ts';
import { notFound, ServiceError, validationFailed } from '../errors.ts';
import { ACCESS_LEVELS, type AccessLevel } from './scopes.ts';
import { hashSecret, newClientId, newClientSecret } from './secrets.ts';
import * as credentials from '../../storage/db/repositories/credentials.ts';
import { findOrganization, lockOrganization } from '../../storage/db/repositories/organizations.ts';
import { recordAudit, type AuditActor } from '../console/audit.ts';
import { invisibleIssue, typedName } from '../text.ts';

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

const view = (c: credentials.CredentialRecord): CredentialView => ({
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

export async function createCredential({
  ctx,
  input,
  actor,
}: {
  ctx: BaseContext;
  input: { organizationId: string; accessLevel: string; name?: string };
  actor?: AuditActor;
}): Promise<CredentialView & { clientSecret: string }> {
  if (!(ACCESS_LEVELS as readonly string[]).includes(input.accessLevel)) {
    throw validationFailed([{ field: 'accessLevel', message: `must be one of ${ACCESS_LEVELS.join(', ')}` }]);
  }
  const name = input.name === undefined ? undefined : typedName(input.name);
  if (input.name !== undefined && name === undefined) throw validationFailed([invisibleIssue('name')]);
  if (name !== undefined && name.length > CREDENTIAL_NAME_MAX_LENGTH) {
    throw validationFailed([{ field: 'name', message: `must be at most ${CREDENTIAL_NAME_MAX_LENGTH} characters` }]);
  }
  const org = await findOrganization(ctx.db.kysely, input.organizationId);
  if (!org) throw notFound('Organization');
  // Several regional deployments may share a database; each makes credentials only for its own
  // region's organizations (a credential works only where it was made).
  if (org.region !== ctx.region) {
    throw new ServiceError(
      'forbidden',
      `The organization belongs to region ${org.region}; this deployment serves region ${ctx.region}. Create its credentials on a ${org.region} deployment.`,
    );
  }
  const now = ctx.now();
  const clientSecret = newClientSecret();
  const record: credentials.CredentialRecord = {
    id: randomUUID(),
    organizationId: org.id,
    name: name || (input.accessLevel === 'read_only' ? 'Read Only' : 'Read & Write'),
    clientId: newClientId(),
    secretHash: hashSecret(clientSecret),
    accessLevel: input.accessLevel,
    region: ctx.region,
    createdAt: now,
    accessLevelChangedAt: now,
    revokedAt: null,
    lastUsedAt: null,
  };
  const max = ctx.maxActiveCredentialsPerOrg ?? DEFAULT_MAX_ACTIVE_CREDENTIALS;
  await ctx.db.kysely.transaction().execute(async (tx) => {
    // Counted under the organization's lock, so concurrent creations cannot pass the cap together.
    await lockOrganization(tx, org.id);
    if ((await credentials.countActiveCredentials(tx, org.id)) >= max) {
      throw validationFailed(
        [{ field: 'credentials', message: `at most ${max} active credentials per organization; revoke one first` }],
        `An organization can have at most ${max} active credentials; revoke one before creating another.`,
      );
    }
    await credentials.insertCredential(tx, record);
    if (actor) {
      const target = { type: 'credential' as const, id: record.id, label: `${record.name} (${record.clientId})` };
      await recordAudit(tx, { organizationId: org.id, actor, action: 'credential.create', target, at: now });
    }
  });
  return { ...view(record), clientSecret };
}

export async function listCredentials({ ctx, input }: { ctx: BaseContext; input: { organizationId: string } }) {
  const org = await findOrganization(ctx.db.kysely, input.organizationId);
  if (!org) throw notFound('Organization');
  return (await credentials.listCredentials(ctx.db.kysely, org.id)).map(view);
}

/** Revocation is immediate everywhere: every request re-reads the credential's state. */
export async function revokeCredential({
  ctx,
  input,
  actor,
}: {
  ctx: BaseContext;
  input: { credentialId: string; organizationId?: string };
  actor?: AuditActor;
}) {
  const existing = await credentials.findCredential(ctx.db.kysely, input.credentialId);
  if (!existing || (input.organizationId && existing.organizationId !== input.organizationId)) {
    throw notFound('Credential');
  }
  await ctx.db.kysely.transaction().execute(async (tx) => {
    const now = ctx.now();
    // Revoking twice is a no-op, and is audited only once.
    if (!(await credentials.revokeCredential(tx, existing.id, now)) || !actor) return;
    const target = { type: 'credential' as const, id: existing.id, label: `${existing.name} (${existing.clientId})` };
    await recordAudit(tx, { organizationId: existing.organizationId, actor, action: 'credential.revoke', target, at: now });
  });
  return view((await credentials.findCredential(ctx.db.kysely, existing.id))!);
}

/** Changing the access level makes tokens issued before the change stale (401 token_stale). */
export async function changeCredentialAccess({
  ctx,
  input,
}: {
  ctx: BaseContext;
  input: { credentialId: string; accessLevel: string };
}) {
  if (!(ACCESS_LEVELS as readonly string[]).includes(input.accessLevel)) {
    throw validationFailed([{ field: 'accessLevel', message: `must be one of ${ACCESS_LEVELS.join(', ')}` }]);
  }
  const existing = await credentials.findCredential(ctx.db.kysely, input.credentialId);
  if (!existing) throw notFound('Credential');
  await credentials.setCredentialAccessLevel(ctx.db.kysely, existing.id, input.accessLevel, ctx.now());
  return view((await credentials.findCredential(ctx.db.kysely, existing.id))!);
}
