// Access tokens checked from memory. Looking a token up in the database on every request was
// most of a small warm read's time; a node keeps each token's grant (its credential's state and
// its organization's plan and data version) after the first lookup, and uses it only while it can
// prove nothing changed since:
// - SQLite (one file, one writer at a time): the database's change stamp (Db.changeStamp) is the
//   same as when the grant was read: no commit at all, by this process or by `cds` in another.
// - PostgreSQL with Redis: the markers of the credential and of the organization, returned by the
//   rate-limit round trip every request makes anyway, equal those derived from the grant
//   (src/domain/auth/state-markers.ts; every revocation, access change and data write raises them
//   after its commit).
// Otherwise the grant is read again. Expiry is checked on every request against the clock.
import type { TokenGrant } from '../../storage/db/repositories/auth/access-tokens.ts';

export interface CachedGrant {
  grant: TokenGrant;
  /** what proves the grant current: the change stamp (SQLite) or the markers (Redis) it was read with */
  proof: string;
}

/** Bounded: the least recently used tokens are dropped first (they are read again when they come back). */
export class GrantCache {
  private readonly entries = new Map<string, CachedGrant>();
  readonly maxEntries: number;

  constructor(maxEntries = 10_000) {
    this.maxEntries = maxEntries;
  }

  get(tokenHash: string): CachedGrant | undefined {
    const entry = this.entries.get(tokenHash);
    if (entry) {
      this.entries.delete(tokenHash);
      this.entries.set(tokenHash, entry);
    }
    return entry;
  }

  set(tokenHash: string, entry: CachedGrant) {
    this.entries.delete(tokenHash);
    this.entries.set(tokenHash, entry);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(tokenHash: string) {
    this.entries.delete(tokenHash);
  }

  get size() {
    return this.entries.size;
  }
}
