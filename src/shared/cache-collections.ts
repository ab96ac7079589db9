// Full collections paced by what the caches drop (src/domain/result-cache.ts, src/http/answer-bytes.ts).
//
// A dropped cache entry is garbage V8 does not see coming: an answer's bytes live outside the
// JavaScript heap behind a small Buffer object that has long been promoted to the old generation,
// and a result's objects are old too, so neither is freed before the next full collection. V8
// starts one when the heap has grown by a share of what it keeps, or when memory outside the heap
// has grown by 64 MiB; with the caches full and turning over (more organizations asking than the
// bounds hold), that let over a hundred MiB of dropped entries wait, on top of the bounds
// (bench/memory.ts). One concurrent full collection per DROPPED_BYTES_PER_COLLECTION dropped keeps
// what waits near that; a cache that is not turning over drops nothing and asks for nothing.
import { CollectionPacer } from './collector.ts';

export const DROPPED_BYTES_PER_COLLECTION = 64 * 1024 * 1024;

export const cacheCollections = new CollectionPacer('major', DROPPED_BYTES_PER_COLLECTION);
