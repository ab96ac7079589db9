// Authentication on PostgreSQL with Redis, from memory: a node keeps each token's grant and
// trusts it while the markers of its credential and organization (state-markers.ts), read in the
// same Redis round trip that counts the request against the credential's rate limit, are those
// derived from the grant. Otherwise (first use, a revocation, an access or plan change, a data
// write, an expired or lost marker) the grant is read from the database after the markers, so it
// sees every change announced before them, and the markers are raised to it.
import type { RateLimitSettings } from '../../config.ts';
import type { SystemContext } from '../context.ts';
import type { MarkerBoard } from '../../storage/ratelimit/store.ts';
import { hitLimitAndRead, type LimitState } from '../../storage/ratelimit/limiter.ts';
import type { GrantCache } from './grant-cache.ts';
import type { Actor } from './scopes.ts';
import { hashSecret } from './secrets.ts';
import { MARKER_TTL_MS, markerKeys, markerValues } from './state-markers.ts';
import { actorOfGrant, readGrant, unauthorized } from './tokens.ts';

export async function authenticateWithMarkers({
  ctx,
  input,
}: {
  ctx: SystemContext & { grants: GrantCache; markers: MarkerBoard };
  input: { token: string | undefined; limit: RateLimitSettings };
}): Promise<{ actor: Actor; state: LimitState }> {
  if (!input.token) throw unauthorized();
  const tokenHash = hashSecret(input.token);
  const cached = ctx.grants.get(tokenHash);
  let grant = cached?.grant ?? (await readGrant(ctx, tokenHash));
  if (!grant) throw unauthorized();

  const keys = markerKeys(grant);
  const { state, markers } = await hitLimitAndRead(ctx.limiter, 'api', grant.credentialId, input.limit, ctx.now(), keys);
  const expected = cached ? cached.proof : markerValues(grant).join(':');
  if (markers.join(':') !== expected) {
    grant = await readGrant(ctx, tokenHash);
    if (!grant) throw unauthorized();
    const values = markerValues(grant);
    const stale = keys.flatMap((key, i) => (markers[i] === String(values[i]) ? [] : [[key, values[i]] as const]));
    await ctx.markers.raiseMarkers(stale, MARKER_TTL_MS);
    ctx.grants.set(tokenHash, { grant, proof: values.join(':') });
  } else if (!cached) {
    ctx.grants.set(tokenHash, { grant, proof: expected });
  }
  return { actor: await actorOfGrant(ctx, grant), state };
}
