// Changing an API credential's access level (Read Only or Read & Write).
import type { BaseContext } from '../context.ts';
import { notFound, validationFailed } from '../../shared/errors.ts';
import { ACCESS_LEVELS } from './scopes.ts';
import { credentialView as view } from './credential-view.ts';
import * as credentials from '../../storage/db/repositories/auth/credentials.ts';
import { announceCredentialChange } from './state-markers.ts';

/** Changing the access level makes tokens issued before the change stale (token_stale). */
export async function changeCredentialAccess({ ctx, input }: { ctx: BaseContext; input: { credentialId: string; accessLevel: string } }) {
  if (!(ACCESS_LEVELS as readonly string[]).includes(input.accessLevel)) {
    throw validationFailed([{ field: 'accessLevel', message: `must be one of ${ACCESS_LEVELS.join(', ')}` }]);
  }
  const existing = await credentials.findCredential(ctx.db.kysely, input.credentialId);
  if (!existing) throw notFound('Credential');
  await credentials.updateCredentialAccessLevel(ctx.db.kysely, existing.id, input.accessLevel, ctx.now());
  await announceCredentialChange(ctx, existing.id);
  return view((await credentials.findCredential(ctx.db.kysely, existing.id))!);
}
