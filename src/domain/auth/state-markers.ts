// What tells every node, at once, that state it keeps in memory changed (with PostgreSQL and
// Redis; on SQLite the database's change stamp does, see grant-cache.ts). Two markers, numbers
// in the shared store that only rise:
// - a credential's: the time of its last access change, or REVOKED once revoked;
// - an organization's: its data version (which its plan changes bump too).
// A node keeps a token's grant with the markers derived from it and trusts it while the markers
// read on each request (with the rate-limit count, in one round trip) are the same. Every commit
// that revokes a credential, changes its access, or changes an organization's data or plan
// announces it below before it is acknowledged. A marker that is missing (expired, or Redis lost
// its data) never matches, so nodes read the database again and raise it back.
import type { BaseContext } from '../context.ts';
import type { MarkerBoard } from '../../storage/ratelimit/store.ts';
import type { TokenGrant } from '../../storage/db/repositories/auth/access-tokens.ts';
import { findCredential } from '../../storage/db/repositories/auth/credentials.ts';
import { findOrganizationState } from '../../storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS, type DataVersions } from '../../shared/data-versions.ts';

/** The organization's versions as one number that rises with every write: each write raises at least one counter, and none ever falls. */
const versionTotal = (versions: DataVersions) => DATA_KINDS.reduce((sum, kind) => sum + versions[kind], 0);

/** A revoked credential's marker: above every time, and revocation is final. */
export const REVOKED = Number.MAX_SAFE_INTEGER;

/**
 * How long a marker lives after it is set. If announcing a change failed after its commit (Redis
 * unreachable for a moment), nodes notice the change at the latest this long after it.
 */
export const MARKER_TTL_MS = 60_000;

export const credentialMarker = (credentialId: string) => `marker:credential:${credentialId}`;
export const organizationMarker = (organizationId: string) => `marker:organization:${organizationId}`;

/** The markers' keys for a grant, in the order markerValues gives their values. */
export function markerKeys(grant: TokenGrant): [string, string] {
  return [credentialMarker(grant.credentialId), organizationMarker(grant.organizationId)];
}

/**
 * What the markers of a grant's credential and organization must hold for the grant to be
 * current. The organization's part is its data version(s) reduced to one number that rises with
 * every write.
 */
export function markerValues(grant: Pick<TokenGrant, 'revokedAt' | 'accessLevelChangedAt' | 'dataVersions'>): [number, number] {
  return [grant.revokedAt !== null ? REVOKED : grant.accessLevelChangedAt, versionTotal(grant.dataVersions)];
}

type MarkedContext = BaseContext & { markers?: MarkerBoard };

/** After a commit that revoked a credential or changed its access: every node re-reads its tokens. */
export async function announceCredentialChange(ctx: MarkedContext, credentialId: string): Promise<void> {
  const { markers } = ctx;
  if (!markers) return;
  await raise(markers, async () => {
    const credential = await findCredential(ctx.db.kysely, credentialId);
    if (!credential) return [];
    const value = credential.revokedAt !== null ? REVOKED : credential.accessLevelChangedAt;
    return [[credentialMarker(credentialId), value]];
  });
}

/**
 * After a commit that changed an organization's data or plan, before acknowledging it: every node
 * takes the new data version(s) for the organization's next request (read-your-writes across nodes).
 */
export async function announceOrganizationChange(ctx: MarkedContext, organizationId: string): Promise<void> {
  const { markers } = ctx;
  if (!markers) return;
  await raise(markers, async () => {
    const state = await findOrganizationState(ctx.db.kysely, organizationId);
    return state ? [[organizationMarker(organizationId), versionTotal(state.dataVersions)]] : [];
  });
}

/**
 * Reads the committed state and raises its markers. Never throws: when the shared store or the
 * read fails, the change is committed all the same (and answered); raising is retried in the
 * background for as long as a marker lives, after which every node reads the database again anyway.
 */
async function raise(markers: MarkerBoard, read: () => Promise<Array<[string, number]>>): Promise<void> {
  const attempt = async () => markers.raiseMarkers(await read(), MARKER_TTL_MS);
  try {
    await attempt();
  } catch {
    const giveUpAt = Date.now() + MARKER_TTL_MS;
    const retry = () =>
      attempt().catch(() => {
        if (Date.now() < giveUpAt) setTimeout(retry, 1000).unref();
      });
    setTimeout(retry, 1000).unref();
  }
}
