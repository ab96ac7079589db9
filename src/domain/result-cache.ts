// "Compute once, serve many": results that depend only on an organization's data and the
// normalized query are kept, keyed by the organization's versions of the kinds of data they read
// (data-versions.ts). A write bumps the versions of the kinds it changes (in the database, so on
// every node), which makes the entries that read those kinds unreachable; the others stay warm.
// Concurrent misses for one key share a single computation.
//
// The entries are bounded by an estimate of the bytes they keep alive (estimate-bytes.ts), not by
// their number: one organization's controls snapshot can be a thousand times another's frameworks
// list. Each result is estimated once, when its computation ends; the least recently used entries
// are dropped first, and a result larger than the whole budget is answered but not kept. The
// recency order, the byte accounting and the eviction are lru-cache's (docs/dependencies.md).
//
// Some results are kept only when asked for a second time ('on-repeat'): a vulnerability page deep
// in the list, which a client paging through once never asks for again. Keeping each such page
// cost more than half as much again as computing it (estimating its bytes, serializing it for the
// kept answer, and collecting it later), and filled the budget with pages nobody would ask for
// while pushing out answers that are asked for. A key asked once is remembered only as a 32-bit
// hash in a table of fixed size (ASKED_SLOTS), so a one-off page holds no memory of its own; two
// keys that share a slot only make one of them kept a request earlier or later.
import { LRUCache } from 'lru-cache';
import { READS, type CachedVerb, type DataKind, type DataVersions } from '../shared/data-versions.ts';
import { cacheCollections } from '../shared/cache-collections.ts';
import { DEFAULT_RESULT_CACHE_MAX_OBJECT_BYTES } from '../config.ts';
import { estimateBytes } from './estimate-bytes.ts';

/**
 * What an entry costs besides its result: the key string, the entry, its place in the maps and
 * sets that index it (by key, and per organization and kind), generously.
 */
const ENTRY_OVERHEAD = 512;

/** Slots of the table of keys asked once (4 bytes each: 256 KiB), a power of two. */
const ASKED_SLOTS = 1 << 16;

/** When a computed result is kept: at once, or when its key is asked for a second time. */
export type Keeping = 'always' | 'on-repeat';

/** FNV-1a of a string's UTF-16 code units: the key's hash in the table of keys asked once (never 0, the empty slot). */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0 || 1;
}

/** What identifies a cached result: made by orgResultKey. */
export interface ResultKey {
  organizationId: string;
  /** the kinds of data the result reads, and their versions, in the same order */
  kinds: readonly DataKind[];
  versions: readonly number[];
  /** the whole key as one string */
  text: string;
}

/** What is kept per key. Replaced by a copy when its size changes (lru-cache sizes a value when it is set). */
interface Entry {
  value: Promise<unknown>;
  key: ResultKey;
  /** estimated bytes kept alive: the overhead and key while computing, plus the result once known */
  bytes: number;
}

export class ResultCache {
  private readonly entries: LRUCache<string, Entry>;
  readonly maxBytes: number;
  /** per organization and kind: the newest version seen and the keys cached for it */
  private readonly orgs = new Map<string, Map<DataKind, { version: number; keys: Set<string> }>>();
  /** every result handed out from an entry: the same object answers every request of its key */
  private readonly handedOut = new WeakSet<object>();

  private onChange: (bytesHeld: number) => void = () => {};
  /** hashes of keys asked once and not kept, by slot (0: empty) */
  private readonly asked = new Uint32Array(ASKED_SLOTS);
  /** computations of keys asked once, shared by requests that ask at the same time, until they end */
  private readonly unkept = new Map<string, Promise<unknown>>();

  constructor(maxBytes = DEFAULT_RESULT_CACHE_MAX_OBJECT_BYTES) {
    this.maxBytes = maxBytes;
    this.entries = new LRUCache<string, Entry>({
      // lru-cache wants a positive bound; a budget of 0 never reaches it (getOrCompute keeps nothing)
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (entry) => entry.bytes,
      // 'set' is an entry replaced by its resized copy (account); anything else has left the cache
      dispose: (entry, text, reason) => {
        if (reason !== 'set') this.forget(entry, text);
      },
    });
  }

  /** `listener` hears the estimated bytes held after each change (the operations listener's gauge). */
  reportBytesTo(listener: (bytesHeld: number) => void) {
    this.onChange = listener;
    listener(this.bytesHeld);
  }

  get size() {
    return this.entries.size;
  }

  /** Estimated bytes the kept entries hold (never more than maxBytes). */
  get bytesHeld() {
    return this.entries.calculatedSize;
  }

  /**
   * Entries read at an older version of a kind can never be asked for again, so they are dropped
   * as soon as a newer version of that kind is seen: a busy writer does not fill memory with dead
   * answers, and entries that do not read the kind written are kept.
   */
  async getOrCompute<T>(key: ResultKey, compute: () => Promise<T>, keeping: Keeping = 'always'): Promise<T> {
    const hit = this.entries.get(key.text); // (and now the most recently used)
    if (hit) return hit.value as Promise<T>;
    const overhead = ENTRY_OVERHEAD + 2 * key.text.length;
    if (overhead > this.maxBytes) return compute(); // a budget too small for any entry keeps none
    if (keeping === 'on-repeat') {
      const running = this.unkept.get(key.text);
      if (running) return running as Promise<T>;
      if (!this.askedBefore(key.text)) return this.computeUnkept(key.text, compute);
    }
    const known = this.orgs.get(key.organizationId) ?? new Map<DataKind, { version: number; keys: Set<string> }>();
    for (let i = 0; i < key.kinds.length; i++) {
      const seen = known.get(key.kinds[i]);
      if (seen && seen.version > key.versions[i]) return compute(); // a request that raced a newer write
    }
    for (let i = 0; i < key.kinds.length; i++) {
      const seen = known.get(key.kinds[i]);
      if (seen && seen.version === key.versions[i]) continue;
      for (const old of [...(seen?.keys ?? [])]) this.entries.delete(old);
      known.set(key.kinds[i], { version: key.versions[i], keys: new Set() });
    }
    this.orgs.set(key.organizationId, known);
    const pending = compute();
    for (const kind of key.kinds) known.get(kind)!.keys.add(key.text);
    this.entries.set(key.text, { value: pending, key, bytes: overhead }); // the least recently used give way
    this.onChange(this.bytesHeld);
    pending.then(
      (value) => {
        if (!this.holds(key.text, pending)) return; // dropped while computing
        if (value !== null && typeof value === 'object') this.handedOut.add(value);
        // Estimated once the answers waiting for it are written (a megabyte of controls takes a
        // millisecond to walk, which a cold answer need not wait for); until then the entry counts
        // its overhead only.
        setImmediate(() => this.account(key.text, pending, value));
      },
      // A failed computation is not kept: the next request tries again.
      () => {
        if (this.holds(key.text, pending)) this.entries.delete(key.text);
        this.onChange(this.bytesHeld);
      },
    );
    return pending;
  }

  /** Whether the entry of `text` is still the one computing `pending` (peek: no recency change). */
  private holds(text: string, pending: Promise<unknown>): boolean {
    return this.entries.peek(text)?.value === pending;
  }

  /** Whether `text` was asked for before (and is now due to be kept); remembers it otherwise. */
  private askedBefore(text: string): boolean {
    const h = hashOf(text);
    const slot = h & (ASKED_SLOTS - 1);
    if (this.asked[slot] === h) {
      this.asked[slot] = 0;
      return true;
    }
    this.asked[slot] = h;
    return false;
  }

  /** A computation not kept, shared only while it runs. */
  private computeUnkept<T>(text: string, compute: () => Promise<T>): Promise<T> {
    const pending = compute();
    this.unkept.set(text, pending);
    const done = () => this.unkept.delete(text);
    pending.then(done, done);
    return pending;
  }

  /** Adds the estimate of `value` to its entry, or drops the entry when it alone would exceed the bound. */
  private account(text: string, pending: Promise<unknown>, value: unknown) {
    const entry = this.entries.peek(text);
    if (entry?.value !== pending) return; // dropped meanwhile
    const bytes = entry.bytes + estimateBytes(value);
    if (bytes > this.maxBytes) {
      // larger than the whole budget: answered, not kept, and no longer shared (so its answer
      // bytes are not found for later requests either)
      this.entries.delete(text);
      if (value !== null && typeof value === 'object') this.handedOut.delete(value);
    } else {
      // resized (a copy: lru-cache sizes what is set); others give way, least recently used first
      this.entries.set(text, { ...entry, bytes });
    }
    this.onChange(this.bytesHeld);
  }

  /**
   * True when `value` is a cached result, shared as is by every request with its key (so work
   * derived from it alone, such as its serialized form, may be kept with it; src/http/answer-bytes.ts).
   */
  shares(value: unknown): boolean {
    return value !== null && typeof value === 'object' && this.handedOut.has(value);
  }

  /** Called by lru-cache for every entry that leaves (dropped, evicted, cleared). */
  private forget(entry: Entry, text: string) {
    cacheCollections.note(entry.bytes);
    const known = this.orgs.get(entry.key.organizationId);
    if (!known) return;
    for (const kind of entry.key.kinds) known.get(kind)?.keys.delete(text);
    if ([...known.values()].every((k) => k.keys.size === 0)) this.orgs.delete(entry.key.organizationId);
  }

  clear() {
    this.entries.clear();
    this.orgs.clear();
    this.onChange(this.bytesHeld);
  }
}

/** A cache that keeps nothing: every call computes (tests and benchmarks that must see each write). */
export class NoResultCache extends ResultCache {
  override async getOrCompute<T>(_key: ResultKey, compute: () => Promise<T>, _keeping?: Keeping): Promise<T> {
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
 * The cache key of an organization-scoped result: org, the versions of the kinds the verb reads
 * (READS), verb and the canonical input, as JSON, so that no free-text value (an ID, a
 * department) can make two different inputs share a key.
 */
export function orgResultKey(organizationId: string, dataVersions: DataVersions, verb: CachedVerb, input: object): ResultKey {
  const kinds = READS[verb];
  const versions = kinds.map((k) => dataVersions[k]);
  return { organizationId, kinds, versions, text: JSON.stringify([organizationId, versions, verb, canonical(input)]) };
}

/** Minimal view of a request context, to keep this module free of the domain's other types. */
interface CachingContext {
  cache: ResultCache;
  actor: { organizationId: string; dataVersions: DataVersions };
}

/**
 * The result of `compute`, shared by every request of the organization with the same (canonical)
 * input and the same versions of the kinds of data `verb` reads.
 */
export function cachedResult<T>(
  ctx: CachingContext,
  verb: CachedVerb,
  input: object,
  compute: () => Promise<T>,
  keeping: Keeping = 'always',
): Promise<T> {
  return ctx.cache.getOrCompute(orgResultKey(ctx.actor.organizationId, ctx.actor.dataVersions, verb, input), compute, keeping);
}
