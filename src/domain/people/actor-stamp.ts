// Who a person stamp (`addedBy`, `lastModifiedBy`, `publishedBy`, `markedOutOfScopeBy`,
// `revisionRequestedBy`, an attachment's `updatedBy`…) names when the change was not made by a
// person of the organization's program. The spec's stamp is `{ name, email }` and the stored
// columns hold a person's ID, so each actor is a person row of its own, made on first use with an
// ID derived from the actor (the same actor always stamps with the same row):
// - an API credential: `actor_cred_<credentialId>`, named after the credential, email
//   `<clientId>@credentials.invalid`;
// - a console administrator: `actor_admin_<adminId>`, named and addressed by the admin's email;
// - the service itself (time: evidence going stale, a policy's review falling due):
//   `actor_service_<organizationId>` (person IDs are unique across organizations), named
//   "Compliance Data Service", email `service@compliance.invalid`.
// `.invalid` is reserved (RFC 2606): these addresses can never reach anyone by mistake.
// docs/decisions/program-writes.md ("Who did it") holds this decision.
import type { Kysely } from 'kysely';
import { DATA_KINDS } from '../../shared/data-versions.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import type { Database } from '../../storage/db/schema.ts';
import {
  findAdminEmail,
  findCredentialName,
  findPersonIdByEmailExact,
  upsertActorPerson,
} from '../../storage/db/repositories/organizations/actor-people.ts';

export type StampActor = { kind: 'credential'; credentialId: string } | { kind: 'admin'; adminId: string } | { kind: 'service' };

export const ACTOR_PERSON_PREFIX = 'actor_';
export const SERVICE_STAMP = { name: 'Compliance Data Service', email: 'service@compliance.invalid' } as const;

/** Whether a person row stands for an actor (a credential, an administrator, the service) rather than a person of the program. */
export const isActorPerson = (personId: string) => personId.startsWith(ACTOR_PERSON_PREFIX);

/** The ID of the person row that stamps the actor's changes in the organization, made or refreshed inside `trx`. */
export async function actorPersonId(trx: Kysely<Database>, organizationId: string, actor: StampActor): Promise<string> {
  let person: { id: string; name: string; email: string };
  if (actor.kind === 'credential') {
    const credential = await findCredentialName(trx, organizationId, actor.credentialId);
    person = {
      id: `${ACTOR_PERSON_PREFIX}cred_${actor.credentialId}`,
      name: credential?.name ?? 'API credential',
      email: `${credential?.clientId ?? actor.credentialId}@credentials.invalid`,
    };
  } else if (actor.kind === 'admin') {
    const email = (await findAdminEmail(trx, organizationId, actor.adminId)) ?? `${actor.adminId}@admins.invalid`;
    // An administrator who is also a person of the program stamps as that person (people's emails are unique).
    const same = await findPersonIdByEmailExact(trx, organizationId, email);
    if (same && !isActorPerson(same)) return same;
    person = { id: `${ACTOR_PERSON_PREFIX}admin_${actor.adminId}`, name: email, email };
  } else {
    person = { id: `${ACTOR_PERSON_PREFIX}service_${organizationId}`, ...SERVICE_STAMP };
  }
  // A renamed credential renames its stamp on every record of every kind it stamped: cached answers
  // of all kinds are keyed by data versions, so all of them move (renames are rare).
  if ((await upsertActorPerson(trx, { organizationId, ...person })) === 'renamed') await bumpDataVersions(trx, organizationId, DATA_KINDS);
  return person.id;
}
