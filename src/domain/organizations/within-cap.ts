// An organization's cap on a kind of thing it holds (active credentials, webhook endpoints): the
// count is taken under the organization's lock, so concurrent creations cannot pass the cap
// together, and one more past it is refused in the same words for every kind.
import type { Kysely } from 'kysely';
import { validationFailed } from '../../shared/errors.ts';
import { lockOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import type { Database } from '../../storage/db/schema.ts';

/** What each cap counts, in the words of its refusal: the detail's field, the things, how one is given up, what was refused. */
const CAPS = {
  credentials: { field: 'credentials', things: 'active credentials', undo: 'revoke', doing: 'creating' },
  endpoints: { field: 'endpoints', things: 'webhook endpoints', undo: 'delete', doing: 'registering' },
} as const;

/**
 * Locks the organization, then throws validation_failed when it already holds `max` of what `cap`
 * counts (`count`, under the lock).
 */
export async function assertWithinCap(
  tx: Kysely<Database>,
  organizationId: string,
  cap: keyof typeof CAPS,
  max: number,
  count: (tx: Kysely<Database>, organizationId: string) => Promise<number>,
): Promise<void> {
  await lockOrganization(tx, organizationId);
  if ((await count(tx, organizationId)) < max) return;
  const { field, things, undo, doing } = CAPS[cap];
  throw validationFailed(
    [{ field, message: `at most ${max} ${things} per organization; ${undo} one first` }],
    `An organization can have at most ${max} ${things}; ${undo} one before ${doing} another.`,
  );
}
