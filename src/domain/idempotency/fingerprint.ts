// The request fingerprint an idempotency key is bound to: the operation, the resource it writes
// and the canonical body (docs/decisions/writes-and-uploads.md, "Fingerprint").
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

/** What a fingerprint hashes besides the body: the operation's name and the resource it writes ('' for a creation). */
export const fingerprintSubject = (operation: string, target: string) => `${operation}\n${target}`;

/**
 * The subjects of a request's fingerprints: its own first (the one stored), then, when
 * `legacySubject` is given, the previous version's subject for the target (the caller builds it),
 * which records stored before an upgrade carry (docs/decisions/writes-and-uploads.md, "Fingerprint").
 */
export function fingerprintSubjects(operation: string, target: string, legacySubject?: (target: string) => string): string[] {
  const subject = fingerprintSubject(operation, target);
  return legacySubject ? [subject, legacySubject(target)] : [subject];
}

export function jsonFingerprint(subject: string, body: unknown): string {
  return sha256(`${subject}\njson\n${canonicalJson(body ?? null)}`);
}

/** One part of a multipart body: a file (its content hash) or a field (its value). */
export type PartDigest = { kind: 'file'; name: string; filename: string; sha256: string } | { kind: 'field'; name: string; value: string };

export function multipartFingerprint(subject: string, parts: readonly PartDigest[]): string {
  const canonicalParts = parts.map((p) => (p.kind === 'file' ? ['file', p.name, p.filename, p.sha256] : ['field', p.name, p.value]));
  return sha256(`${subject}\nmultipart\n${JSON.stringify(canonicalParts)}`);
}
