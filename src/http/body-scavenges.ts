// Young-generation collections paced by the request body bytes uploads receive.
//
// Node's HTTP parser hands every chunk of a request body over in a Buffer of its own, whose bytes
// live outside the JavaScript heap. An upload's chunks die young (each is hashed, written to the
// blob store and dropped), and a young-generation collection (a scavenge, about a millisecond
// here) frees the dead ones. But V8 schedules scavenges by what the JavaScript heap allocates, and
// an upload allocates little there per chunk: with the service's new space grown to its maximum
// (by start-up and by reads), tens of MiB of dead chunks piled up between two scavenges, until
// V8's trigger on memory outside the heap marked and compacted the whole heap, the start of three
// to four full collections per 100 MiB uploaded: most of an upload's CPU. A scavenge every 16 MiB
// of body keeps the dead chunks well under that trigger. (Full collections V8 starts for other
// reasons are not prevented: docs/decisions/performance.md, "Uploads: where the garbage came from".)
import { CollectionPacer } from '../shared/collector.ts';

/** Body bytes received (by all the uploads of the process together) between two scavenges. */
export const BODY_BYTES_PER_SCAVENGE = 16 * 1024 * 1024;

const scavenges = new CollectionPacer('minor', BODY_BYTES_PER_SCAVENGE);

/** Counts body bytes as an upload's parser receives them; every BODY_BYTES_PER_SCAVENGE, one scavenge. */
export function noteBodyBytes(bytes: number): void {
  scavenges.note(bytes);
}
