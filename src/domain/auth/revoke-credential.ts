// Revoking an API credential by its ID. A console administrator (an AdminActor) revokes only its
// own organization's; an operator running `cds` (an audit actor without an organization) any. With
// an actor, the revocation and its audit entry commit together.
import type { AdminActor, BaseContext } from '../context.ts';
import { notFound } from '../../shared/errors.ts';
import { consoleCredential, credentialView as view } from './credential-view.ts';
import { recordEvents } from '../events/record.ts';
import * as credentials from '../../storage/db/repositories/auth/credentials.ts';
import { recordAudit, type AuditActor } from '../console/audit.ts';
import { announceCredentialChange } from './state-markers.ts';

/** Revocation is immediate everywhere: it is announced to every node before it is answered (state-markers.ts). */
export async function revokeCredential({
  ctx,
  input,
}: {
  ctx: BaseContext & { actor?: AuditActor | AdminActor };
  input: { credentialId: string };
}) {
  const { actor } = ctx;
  const existing = await credentials.findCredential(ctx.db.kysely, input.credentialId);
  if (!existing || (actor && 'organizationId' in actor && existing.organizationId !== actor.organizationId)) {
    throw notFound('Credential');
  }
  await ctx.db.kysely.transaction().execute(async (tx) => {
    const now = ctx.now();
    // Revoking twice is a no-op, and is audited and recorded as an event only once.
    if (!(await credentials.revokeCredential(tx, existing.id, now))) return;
    const revoked = (await credentials.findCredential(tx, existing.id))!;
    await recordEvents(tx, existing.organizationId, [
      { type: 'credential.revoked', resourceId: existing.id, occurredAt: now, data: { credential: consoleCredential(revoked) } },
    ]);
    if (!actor) return;
    const target = { type: 'credential' as const, id: existing.id, label: `${existing.name} (${existing.clientId})` };
    await recordAudit(tx, { organizationId: existing.organizationId, actor, action: 'credential.revoke', target, at: now });
  });
  // Committed: every node refuses the credential's tokens from its next request on.
  await announceCredentialChange(ctx, existing.id);
  return view((await credentials.findCredential(ctx.db.kysely, existing.id))!);
}
