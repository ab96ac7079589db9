// Signing out of the console: the session ends at once, and the audit log says so.
import type { BaseContext } from '../context.ts';
import { recordAudit } from './audit.ts';
import { adminActor, type Origin } from './session.ts';
import type { SignedInAdmin } from './schema.ts';
import * as sessions from '../../storage/db/repositories/console/admin-sessions.ts';

export async function signOut({ ctx, input }: { ctx: BaseContext; input: { session: SignedInAdmin; origin: Origin } }) {
  const { session } = input;
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await sessions.deleteSession(tx, session.sessionId);
    await recordAudit(tx, {
      organizationId: session.organization.id,
      actor: adminActor(session, input.origin),
      action: 'session.sign_out',
      target: { type: 'session', id: session.sessionId, label: session.admin.email },
      at: ctx.now(),
    });
  });
}
