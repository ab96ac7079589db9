// An organization's cap on a kind of thing it holds (active credentials, webhook endpoints): the
// count is taken under the organization's lock, so concurrent creations cannot pass the cap
// together, and one more past it is refused in the same words for every kind.
import type { Kysely } from 'kysely';
import { validationFailed } from '../../shared/errors.ts';
import { lockOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import type { Database } from '../../storage/db/schema.ts';

export interface Cap {
  /** the detail's field: what is capped (`credentials`) */
  field: string;
  /** the things counted, plural (`active credentials`) */
  things: string;
  /** how one is given up (`revoke`) and what the refused request did (`creating`) */
  undo: string;
  doing: string;
  max: number;
  count: (tx: Kysely<Database>, organizationId: string) => Promise<number>;
}

/** Locks the organization, then throws validation_failed when it already holds `cap.max`. */
export async function assertWithinCap(tx: Kysely<Database>, organizationId: string, cap: Cap): Promise<void> {
  await lockOrganization(tx, organizationId);
  if ((await cap.count(tx, organizationId)) < cap.max) return;
  throw validationFailed(
    [{ field: cap.field, message: `at most ${cap.max} ${cap.things} per organization; ${cap.undo} one first` }],
    `An organization can have at most ${cap.max} ${cap.things}; ${cap.undo} one before ${cap.doing} another.`,
  );
}
