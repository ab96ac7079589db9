// "Compute once, serve many": results that depend only on an organization's data and the
// normalized query are kept, keyed by the organization's data version. Every write bumps that
// version (in the database, so on every node), which makes older entries unreachable; they age
// out of the LRU. Concurrent misses for one key share a single computation.

export class ResultCache {
  private readonly entries = new Map<string, Promise<unknown>>();
  private readonly maxEntries: number;

  constructor(maxEntries = 1000) {
    this.maxEntries = maxEntries;
  }

  get size() {
    return this.entries.size;
  }

  async getOrCompute<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) {
      // Refresh recency: Map keeps insertion order, so re-inserting moves the key to the end.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit as Promise<T>;
    }
    const pending = compute();
    this.entries.set(key, pending);
    // A failed computation is not kept: the next request tries again.
    pending.catch(() => {
      if (this.entries.get(key) === pending) this.entries.delete(key);
    });
    while (this.entries.size > this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    return pending;
  }

  clear() {
    this.entries.clear();
  }
}

/**
 * The cache key of an organization-scoped result: org, data version, verb and the normalized
 * input (keys sorted, list values sorted and de-duplicated), as JSON so that no free-text value
 * can make two different inputs share a key.
 */
export function orgResultKey(organizationId: string, dataVersion: number, verb: string, input: Record<string, unknown>): string {
  const normalized = Object.keys(input)
    .sort()
    .filter((k) => input[k] !== undefined)
    .map((k) => {
      const v = input[k];
      return [k, Array.isArray(v) ? [...new Set(v.map(String))].sort() : v];
    });
  return JSON.stringify([organizationId, dataVersion, verb, normalized]);
}
