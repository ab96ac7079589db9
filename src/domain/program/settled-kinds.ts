// Kinds a plan or apply need not touch (issue 25's figures: re-applying a document unchanged costs
// a fraction of the first apply, and planning a one-field change takes seconds, not a full diff).
// After an apply, each kind it listed keeps the digest of its entries and the organization's data
// versions (migration 0019). Later, a kind whose entries have the same digest while no data version
// has moved is settled: its records are exactly what those entries made, so its diff is empty and
// its entries are as valid as they were. Every write to an organization's program moves a data
// version (data-versions.ts, checked by test/http/data-versions-property.test.ts), and the digest
// covers the service version, the format version and prune, so anything else retires the digests
// and the kind takes the full path. The rule is pinned by test/http/program-settled.test.ts.
import { createHash, type Hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { findOrganizationState } from '../../storage/db/repositories/organizations/organizations.ts';
import { loadProgramDigests, replaceProgramDigests } from '../../storage/db/repositories/program/program-digests.ts';
import { SERVICE_VERSION } from '../../shared/version.ts';
import { PROGRAM_FORMAT_VERSION } from './document-schema.ts';
import { PROGRAM_KIND_NAMES, type ProgramKindName } from '../kinds/kind.ts';

/** Each listed kind's digest: of its entries as the document gives them, and of what else shapes an apply of them. */
export type KindDigests = ReadonlyMap<ProgramKindName, string>;

/** A kind's digest before its entries (digestKinds; precheck.ts makes it an entry at a time). */
export function kindHash(name: ProgramKindName, prune: boolean): Hash {
  return createHash('sha256').update(
    `${SERVICE_VERSION}\u0000${PROGRAM_FORMAT_VERSION}\u0000${name}\u0000${prune ? 'prune' : 'keep'}\u0000`,
  );
}

/** What an entry adds to its kind's digest. */
export const entryDigestText = (entry: unknown) => `${JSON.stringify(entry) ?? 'undefined'}\u0000`;

/** The digests of the kinds the document lists (entries as parsed: a reordered or reformatted entry is a new digest, never a false match). */
export function digestKinds(document: unknown, prune: boolean): KindDigests {
  const digests = new Map<ProgramKindName, string>();
  if (!document || typeof document !== 'object') return digests;
  for (const name of PROGRAM_KIND_NAMES) {
    const entries = (document as Record<string, unknown>)[name];
    if (entries === undefined) continue;
    if (!Array.isArray(entries)) continue; // not a list (the schema check says so): no digest, the full path
    const hash = kindHash(name, prune);
    try {
      // entry by entry: never the whole kind as one string
      for (const entry of entries) hash.update(entryDigestText(entry));
    } catch {
      continue; // not plain data (the schema check says why): no digest, the full path
    }
    digests.set(name, hash.digest('base64url'));
  }
  return digests;
}

async function versionsStamp(trx: Kysely<Database>, organizationId: string): Promise<string | undefined> {
  const state = await findOrganizationState(trx, organizationId);
  return state && JSON.stringify(state.dataVersions);
}

/** The listed kinds that are settled: same digest as the last apply left, and no data version moved since. */
export async function settledKinds(trx: Kysely<Database>, organizationId: string, digests: KindDigests): Promise<Set<ProgramKindName>> {
  const settled = new Set<ProgramKindName>();
  if (digests.size === 0) return settled;
  const rows = await loadProgramDigests(trx, organizationId);
  if (rows.length === 0) return settled;
  const versions = await versionsStamp(trx, organizationId);
  for (const row of rows) {
    if (row.versions === versions && digests.get(row.kind as ProgramKindName) === row.digest) settled.add(row.kind as ProgramKindName);
  }
  return settled;
}

/** After an apply that changed something: its kinds' digests with the data versions it left (other kinds' rows are retired). */
export async function keepDigests(trx: Kysely<Database>, organizationId: string, digests: KindDigests): Promise<void> {
  const versions = (await versionsStamp(trx, organizationId)) ?? '';
  await replaceProgramDigests(
    trx,
    organizationId,
    [...digests].map(([kind, digest]) => ({ kind, digest, versions })),
  );
}
