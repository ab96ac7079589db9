// The request fingerprint an Idempotency-Key is bound to: method, path and the canonical body.
// JSON bodies are canonical with sorted keys (so key order and whitespace never matter, while array
// order does); multipart bodies are their ordered parts, each by name, filename and the SHA-256 of
// its bytes, never the boundary, so a retry built with a new boundary matches.
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const source = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(source)
        .sort()
        .filter((k) => source[k] !== undefined)
        .map((k) => [k, sortKeys(source[k])]),
    );
  }
  return value;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function jsonFingerprint(method: string, path: string, body: unknown): string {
  return sha256(`${method}\n${path}\njson\n${canonicalJson(body ?? null)}`);
}

/** One part of a multipart body: a file (its content hash) or a field (its value). */
export type PartDigest =
  | { kind: 'file'; name: string; filename: string; sha256: string }
  | { kind: 'field'; name: string; value: string };

export function multipartFingerprint(method: string, path: string, parts: readonly PartDigest[]): string {
  const canonicalParts = parts.map((p) => (p.kind === 'file' ? ['file', p.name, p.filename, p.sha256] : ['field', p.name, p.value]));
  return sha256(`${method}\n${path}\nmultipart\n${JSON.stringify(canonicalParts)}`);
}
