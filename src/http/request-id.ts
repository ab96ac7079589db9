// The ID of one request: in every answer's X-Request-Id header and error body, and on every log
// line of the request. Made here, never taken from the client (the spec promises a unique one).
// 96 random bits each, drawn from the system's CSPRNG a few kilobytes at a time: one call per
// request cost as much as the rest of a warm read's bookkeeping.
import { randomBytes } from 'node:crypto';

const ID_BYTES = 12;
const IDS_PER_DRAW = 256;
let pool = Buffer.alloc(0);
let offset = 0;

export function newRequestId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * IDS_PER_DRAW);
    offset = 0;
  }
  const id = `req_${pool.toString('hex', offset, offset + ID_BYTES)}`;
  offset += ID_BYTES;
  return id;
}
