// Name-based UUIDs (RFC 9562 version 5: SHA-1 of a namespace UUID and a name), so the same input
// always gives the same UUID: an exported catalog keeps its uuid across exports of one framework.
import { createHash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 9562's namespace for names that are URLs. */
export const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/** Namespaces' bytes, parsed once: a program apply derives thousands of IDs in a few namespaces. */
const namespaceBytes = new Map<string, Buffer>();

function bytesOf(namespace: string): Buffer {
  let bytes = namespaceBytes.get(namespace);
  if (!bytes) {
    if (!UUID.test(namespace)) throw new TypeError(`not a UUID: ${namespace}`);
    bytes = Buffer.from(namespace.replaceAll('-', ''), 'hex');
    if (namespaceBytes.size < 64) namespaceBytes.set(namespace, bytes);
  }
  return bytes;
}

export function uuidV5(namespace: string, name: string): string {
  const bytes = createHash('sha1').update(bytesOf(namespace)).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // the RFC's variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
