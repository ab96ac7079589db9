// The writes of PATCH /v1/controls/{controlId} (src/domain/controls/update.ts): the control's scope
// columns and stamps, and its assignees. The rules live in the domain; this is SQL only.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

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

/** The people of the organization with these emails (case-insensitive), lower-cased email → person ID. */
export async function findPeopleByEmails(db: Q, organizationId: string, emails: readonly string[]): Promise<Map<string, string>> {
  if (emails.length === 0) return new Map();
  const rows = await db
    .selectFrom('people')
    .select(['id', 'email'])
    .where('organization_id', '=', organizationId)
    .where((eb) =>
      eb(
        eb.fn('lower', ['email']),
        'in',
        emails.map((e) => e.toLowerCase()),
      ),
    )
    .orderBy('id')
    .execute();
  const found = new Map<string, string>();
  for (const r of rows) if (!found.has(r.email.toLowerCase())) found.set(r.email.toLowerCase(), r.id);
  return found;
}

/** Makes `personIds` the control's assignees, in order; the first is the primary one. */
export async function replaceControlAssignees(
  db: Q,
  organizationId: string,
  controlId: string,
  personIds: readonly string[],
): Promise<void> {
  await db
    .deleteFrom('subject_people')
    .where('organization_id', '=', organizationId)
    .where('subject_type', '=', 'control')
    .where('subject_id', '=', controlId)
    .where('role', '=', 'assignee')
    .execute();
  if (personIds.length === 0) return;
  await db
    .insertInto('subject_people')
    .values(
      personIds.map((personId, position) => ({
        organization_id: organizationId,
        subject_type: 'control' as const,
        subject_id: controlId,
        role: 'assignee' as const,
        person_id: personId,
        is_primary: position === 0,
        position,
      })),
    )
    .execute();
}
