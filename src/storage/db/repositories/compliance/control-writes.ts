// The writes of PATCH /v1/controls/{controlId} (src/domain/controls/update.ts): the control's scope
// columns and stamps, and its assignees. The rules live in the domain; this is SQL only.
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { replaceAssignees } from './assignees.ts';

export { findPeopleByEmails } from './assignees.ts';

type Q = Kysely<Database>;

export interface ControlScopeChange {
  scope: string;
  outOfScopeReason: string | null;
  markedOutOfScopeBy: string | null;
  lastModifiedBy: string;
  modifiedOn: number;
}

export async function updateControlScope(db: Q, organizationId: string, controlId: string, change: ControlScopeChange): Promise<void> {
  await db
    .updateTable('controls')
    .set({
      scope: change.scope,
      out_of_scope_reason: change.outOfScopeReason,
      marked_out_of_scope_by: change.markedOutOfScopeBy,
      last_modified_by: change.lastModifiedBy,
      modified_on: change.modifiedOn,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', controlId)
    .execute();
}

/** Makes `personIds` the control's assignees, in order; the first is the primary one. */
export const replaceControlAssignees = (db: Q, organizationId: string, controlId: string, personIds: readonly string[]) =>
  replaceAssignees(db, organizationId, 'control', controlId, personIds);
