// "Compute once, serve many": results that depend only on an organization's data and the
// normalized query are kept, keyed by the organization's data version. Every write bumps that
// version (in the database, so on every node), which makes older entries unreachable; they age
// out of the LRU. Concurrent misses for one key share a single computation.

export class ResultCache {
  private readonly entries = new Map<string, Promise<unknown>>();
  private readonly maxEntries: number;
  /** per organization: the newest data version seen and the keys cached for it */
  private readonly orgs = new Map<string, { version: number; keys: Set<string> }>();
  /** every result handed out from an entry: the same object answers every request of its key */
  private readonly handedOut = new WeakSet<object>();

  constructor(maxEntries = 200) {
    this.maxEntries = maxEntries;
  }

  get size() {
    return this.entries.size;
  }

  /**
   * `key` must come from orgResultKey. Entries of an organization's older data versions can never
   * be asked for again, so they are dropped as soon as a newer version is seen: a busy writer does
   * not fill memory with dead answers.
   */
  async getOrCompute<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) {
      // Refresh recency: Map keeps insertion order, so re-inserting moves the key to the end.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit as Promise<T>;
    }
    const [org, version] = JSON.parse(key) as [string, number];
    let known = this.orgs.get(org);
    if (known && known.version > version) return compute(); // a request that raced a newer write
    if (!known || known.version < version) {
      for (const old of known?.keys ?? []) this.entries.delete(old);
      known = { version, keys: new Set() };
      this.orgs.set(org, known);
    }
    const pending = compute();
    pending.then(
      (value) => {
        if (value !== null && typeof value === 'object') this.handedOut.add(value);
      },
      () => {},
    );
    this.entries.set(key, pending);
    known.keys.add(key);
    // A failed computation is not kept: the next request tries again.
    pending.catch(() => {
      if (this.entries.get(key) === pending) this.remove(key);
    });
    while (this.entries.size > this.maxEntries) this.remove(this.entries.keys().next().value as string);
    return pending;
  }

  /**
   * True when `value` is a cached result, shared as is by every request with its key (so work
   * derived from it alone, such as its serialized form, may be kept with it; src/http/answer-bytes.ts).
   */
  shares(value: unknown): boolean {
    return value !== null && typeof value === 'object' && this.handedOut.has(value);
  }

  private remove(key: string) {
    this.entries.delete(key);
    const [org] = JSON.parse(key) as [string];
    const known = this.orgs.get(org);
    known?.keys.delete(key);
    if (known && known.keys.size === 0) this.orgs.delete(org);
  }

  clear() {
    this.entries.clear();
    this.orgs.clear();
  }
}

/** A cache that keeps nothing: every call computes (tests and benchmarks that must see each write). */
export class NoResultCache extends ResultCache {
  override async getOrCompute<T>(_key: string, compute: () => Promise<T>): Promise<T> {
    return compute();
  }
}

/** Canonical JSON value: object keys sorted, undefined dropped, arrays sorted and de-duplicated (their order never changes an answer). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    return [...new Map(items.map((v) => [JSON.stringify(v), v])).entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, v]) => v);
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * The cache key of an organization-scoped result: org, data version, verb and the canonical
 * input, as JSON, so that no free-text value (an ID, a department) can make two different inputs
 * share a key.
 */
export function orgResultKey(organizationId: string, dataVersion: number, verb: string, input: object): string {
  return JSON.stringify([organizationId, dataVersion, verb, canonical(input)]);
}

/** Minimal view of a request context, to keep this module free of the domain's other types. */
interface CachingContext {
  cache: ResultCache;
  actor: { organizationId: string; dataVersion: number };
}

/**
 * The result of `compute`, shared by every request of the organization at the same data version
 * with the same (canonical) input.
 */
export function cachedResult<T>(ctx: CachingContext, verb: string, input: object, compute: () => Promise<T>): Promise<T> {
  return ctx.cache.getOrCompute(orgResultKey(ctx.actor.organizationId, ctx.actor.dataVersion, verb, input), compute);
}
