// The serialized bytes of cached answers. A domain verb that answers from the result cache
// (src/domain/result-cache.ts) hands out the very same object to every request of the
// organization at the same data version; serializing it again for each request was most of a warm
// read's time. Its envelope is serialized once, with a placeholder request ID, and kept as the
// bytes before and after the ID; each answer is written as those two around its own request ID
// (three chunks of one write, not a fresh copy of the whole answer: allocating and collecting a
// large buffer per request cost as much as the rest of the request).
//
// Entries are found by the identity of the cached result (a WeakMap, so an entry never keeps a
// result alive that the result cache has let go), and held in least-recently-used order within a
// budget of bytes (RESULT_CACHE_MAX_BYTES): the least recently used are dropped first.
import { randomBytes } from 'node:crypto';
import { cacheCollections } from '../shared/cache-collections.ts';

interface Entry {
  result: WeakRef<object>;
  prefix: Buffer;
  suffix: Buffer;
  bytes: number;
}

/** Stands for the request ID while an answer is serialized; random, so no data can contain it. */
const PLACEHOLDER = `req_placeholder_${randomBytes(16).toString('hex')}`;

export class AnswerBytes {
  private readonly byResult = new WeakMap<object, Entry>();
  /** insertion order is recency: a hit moves its entry to the end */
  private readonly recency = new Set<Entry>();
  private held = 0;
  readonly maxBytes: number;
  private readonly onChange: (bytesHeld: number) => void;

  /** `onChange` hears the bytes held after each change (the operations listener's gauge). */
  constructor(maxBytes: number, onChange: (bytesHeld: number) => void = () => {}) {
    this.maxBytes = maxBytes;
    this.onChange = onChange;
  }

  /** Bytes of serialized answers held now (never more than maxBytes). */
  get bytesHeld(): number {
    return this.held;
  }

  get entries(): number {
    return this.recency.size;
  }

  /** Whether the answer to `result` is held (kept within the budget). */
  has(result: object): boolean {
    return this.byResult.has(result);
  }

  /** The answer to `result` with `requestId` spliced in, or undefined when not held. */
  answer(result: object, requestId: string): Buffer[] | undefined {
    const entry = this.byResult.get(result);
    if (!entry) return undefined;
    this.recency.delete(entry);
    this.recency.add(entry);
    return splice(entry, requestId);
  }

  /**
   * Keeps the answer to `result`, serialized by `serialize` with the given stand-in request ID,
   * and returns it with `requestId`. An answer larger than the whole budget is answered, not kept.
   */
  keep(result: object, requestId: string, serialize: (placeholderId: string) => string): Buffer[] {
    const json = serialize(PLACEHOLDER);
    // The envelope's meta (with the request ID) comes after data, so the last occurrence is it.
    const at = json.lastIndexOf(`"${PLACEHOLDER}"`);
    if (at < 0) throw new Error('the serialized answer does not carry its request ID');
    const prefix = Buffer.from(json.slice(0, at + 1), 'utf8');
    const suffix = Buffer.from(json.slice(at + 1 + PLACEHOLDER.length), 'utf8');
    const entry: Entry = { result: new WeakRef(result), prefix, suffix, bytes: prefix.length + suffix.length };
    if (entry.bytes <= this.maxBytes) {
      const old = this.byResult.get(result);
      if (old) this.drop(old);
      this.byResult.set(result, entry);
      this.recency.add(entry);
      this.held += entry.bytes;
      for (const oldest of this.recency) {
        if (this.held <= this.maxBytes) break;
        this.drop(oldest);
      }
      this.onChange(this.held);
    }
    return splice(entry, requestId);
  }

  private drop(entry: Entry) {
    this.recency.delete(entry);
    this.held -= entry.bytes;
    cacheCollections.note(entry.bytes);
    const result = entry.result.deref();
    if (result && this.byResult.get(result) === entry) this.byResult.delete(result);
  }

  clear() {
    for (const entry of [...this.recency]) this.drop(entry);
    this.onChange(this.held);
  }
}

function splice(entry: Entry, requestId: string): Buffer[] {
  return [entry.prefix, Buffer.from(requestId, 'latin1'), entry.suffix];
}
