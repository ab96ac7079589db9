// Event IDs: "evt_" then a ULID (48 bits of milliseconds, then 80 random bits, in Crockford
// base32), so IDs sort by creation time. Within one millisecond of this process the random part is
// incremented instead of drawn again, so the IDs of one write (and of writes in the same
// millisecond) also sort in the order they were made. Across nodes only the time part orders them:
// the feed orders by the organization's event number, never by ID.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastMs = -1;
let lastRandom = 0n;

function encode(value: bigint, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) {
    text = ALPHABET[Number(value & 31n)] + text;
    value >>= 5n;
  }
  return text;
}

export function newEventId(nowMs: number): string {
  const ms = Math.max(0, Math.floor(nowMs));
  if (ms === lastMs && lastRandom < (1n << 80n) - 1n) lastRandom += 1n;
  else {
    lastMs = ms;
    // the top bit left clear, so a run of increments within one millisecond cannot overflow
    lastRandom = BigInt(`0x${randomBytes(10).toString('hex')}`) >> 1n;
  }
  return `evt_${encode(BigInt(ms), 10)}${encode(lastRandom, 16)}`;
}
