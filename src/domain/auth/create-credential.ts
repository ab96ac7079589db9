// A new API credential for the actor's organization, made by its administrator in the console or
// by an operator with `cds`. The secret is returned once, here, and only its hash is stored; the
// credential and its audit entry commit together.
import { DEFAULT_MAX_ACTIVE_CREDENTIALS } from '../../config.ts';
import type { AdminContext } from '../context.ts';
import { notFound, ServiceError, validationFailed } from '../../shared/errors.ts';
import { ACCESS_LEVELS } from './scopes.ts';
import { newCredentialRecord } from './new-credential-record.ts';
import { consoleCredential, CREDENTIAL_NAME_MAX_LENGTH, credentialView as view } from './credential-view.ts';
import { recordEvents } from '../events/record.ts';
import type { CredentialView } from './schema.ts';
import * as credentials from '../../storage/db/repositories/auth/credentials.ts';
import { findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import { assertWithinCap } from '../organizations/within-cap.ts';
import { recordAudit } from '../console/audit.ts';
import { invisibleIssue, typedName } from '../text.ts';

export async function createCredential({
  ctx,
  input,
}: {
  ctx: AdminContext;
  input: { accessLevel: string; name?: string };
}): Promise<CredentialView & { clientSecret: string }> {
  if (!(ACCESS_LEVELS as readonly string[]).includes(input.accessLevel)) {
    throw validationFailed([{ field: 'accessLevel', message: `must be one of ${ACCESS_LEVELS.join(', ')}` }]);
  }
  const name = input.name === undefined ? undefined : typedName(input.name);
  if (input.name !== undefined && name === undefined) throw validationFailed([invisibleIssue('name')]);
  if (name !== undefined && name.length > CREDENTIAL_NAME_MAX_LENGTH) {
    throw validationFailed([{ field: 'name', message: `must be at most ${CREDENTIAL_NAME_MAX_LENGTH} characters` }]);
  }
  const org = await findOrganization(ctx.db.kysely, ctx.actor.organizationId);
  if (!org) throw notFound('Organization');
  // Several regional deployments may share a database; each makes credentials only for its own
  // region's organizations (a credential works only where it was made).
  if (org.region !== ctx.region) {
    throw new ServiceError(
      'forbidden',
      `The organization belongs to region ${org.region}; this deployment serves region ${ctx.region}. Create its credentials on a ${org.region} deployment.`,
    );
  }
  const { record, clientSecret } = newCredentialRecord(ctx, { organizationId: org.id, accessLevel: input.accessLevel, name });
  const now = record.createdAt;
  const max = ctx.maxActiveCredentialsPerOrg ?? DEFAULT_MAX_ACTIVE_CREDENTIALS;
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await assertWithinCap(tx, org.id, 'credentials', max, credentials.countActiveCredentials);
    await credentials.insertCredential(tx, record);
    const target = { type: 'credential' as const, id: record.id, label: `${record.name} (${record.clientId})` };
    await recordAudit(tx, { organizationId: org.id, actor: ctx.actor, action: 'credential.create', target, at: now });
    await recordEvents(tx, org.id, [
      { type: 'credential.created', resourceId: record.id, occurredAt: now, data: { credential: consoleCredential(record) } },
    ]);
  });
  return { ...view(record), clientSecret };
}
