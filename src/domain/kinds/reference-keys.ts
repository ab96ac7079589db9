// The keys an export gives references to requirements and tests whatever the order kinds are read
// in: a requirement is `<framework key>/<its own key>` (its stored key, else its ID, as the
// frameworks kind names it), a test its stored key, else the slug of its ID
// (`test_<slug>_<organization tag>`), else its ID.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { requirementFrameworks } from '../../storage/db/repositories/program/program-names.ts';
import { requirementRef, type KeyBook } from './keys.ts';
import { orgTag } from '../../shared/org-tag.ts';

/** Requirement ID → its reference key, for every requirement of the organization. */
export async function requirementKeys(q: Kysely<Database>, organizationId: string, keys: KeyBook): Promise<(id: string) => string> {
  const frameworks = await requirementFrameworks(q, organizationId);
  return (id) => {
    const stored = keys.storedKeyOf('requirement', id);
    const framework = frameworks.get(id);
    if (framework === undefined) return stored ?? id;
    const own = stored === undefined ? id : stored.slice(stored.indexOf('/') + 1);
    return requirementRef(keys.keyOf('framework', framework), own);
  };
}

/** The ID an apply gives a test named `key`: `test_<key>_<organization tag>`. */
export const testIdFor = (organizationId: string, key: string) => `test_${key}${tagSuffix(organizationId)}`;

/** The key a test exports with: its stored key, else the slug of an ID of the derived form, else its ID. */
export function testKeyOf(keys: KeyBook, id: string): string {
  const stored = keys.storedKeyOf('test', id);
  if (stored !== undefined) return stored;
  const prefix = 'test_';
  const suffix = tagSuffix(keys.organizationId);
  if (id.startsWith(prefix) && id.endsWith(suffix) && id.length > prefix.length + suffix.length)
    return id.slice(prefix.length, -suffix.length);
  return id;
}

/** `_<organization tag>`, computed once per organization (a hash: tests are many). */
let lastTag: { organizationId: string; suffix: string } | undefined;
function tagSuffix(organizationId: string): string {
  if (lastTag?.organizationId !== organizationId) lastTag = { organizationId, suffix: `_${orgTag(organizationId)}` };
  return lastTag.suffix;
}
