// UUIDv7-shaped IDs (RFC 9562) whose text sorts in creation order: 48 bits of milliseconds, then
// a counter that grows within one millisecond of this process, then random bits. Audit entries
// written in the same millisecond (a loader creating several things at once) then list in the
// order they happened, with the ID as the tie-breaker after the timestamp.
import { randomBytes } from 'node:crypto';

let lastMs = -1;
let counter = 0;

export function sortableId(nowMs: number): string {
  if (nowMs === lastMs) counter++;
  else {
    lastMs = nowMs;
    counter = 0;
  }
  const bytes = randomBytes(16);
  const ms = BigInt(Math.max(0, Math.floor(nowMs)));
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  // version 7 and a 12-bit counter (rand_a), then the variant bits
  bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
