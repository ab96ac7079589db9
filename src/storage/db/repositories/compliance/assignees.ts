// A record's assignees: the people of the organization found by email (case-insensitive), and the
// subject_people rows that make them a control's or a finding's assignees.
import type { Kysely } from 'kysely';
import type { Database, SubjectType } from '../../schema.ts';

type Q = Kysely<Database>;

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

/** Makes `personIds` the record's assignees, in order; the first is the primary one. */
export async function replaceAssignees(
  db: Q,
  organizationId: string,
  subjectType: SubjectType,
  subjectId: string,
  personIds: readonly string[],
): Promise<void> {
  await db
    .deleteFrom('subject_people')
    .where('organization_id', '=', organizationId)
    .where('subject_type', '=', subjectType)
    .where('subject_id', '=', subjectId)
    .where('role', '=', 'assignee')
    .execute();
  if (personIds.length === 0) return;
  await db
    .insertInto('subject_people')
    .values(
      personIds.map((personId, position) => ({
        organization_id: organizationId,
        subject_type: subjectType,
        subject_id: subjectId,
        role: 'assignee' as const,
        person_id: personId,
        is_primary: position === 0,
        position,
      })),
    )
    .execute();
}
