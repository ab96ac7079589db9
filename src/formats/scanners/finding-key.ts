// The finding key of a scanned finding (docs/scanner-formats.md, "The key"). Two rules:
// - an advisory in a package (Trivy, Grype, OSV-Scanner, CycloneDX, OpenVEX): the advisory ID (the
//   CVE when the tool knows one, else the GHSA, else the tool's own ID) and the package without its
//   version, so the same CVE in two packages is two findings and an upgrade that still leaves the
//   package vulnerable keeps the finding;
// - a rule at a place (SARIF): the tool, the rule ID and the location's fingerprint.
// The key reads `<advisory or rule>~<package>~<hash>`: the readable parts are shortened to fit the
// API's 64 characters, and the hash (96 bits of SHA-256 over the whole identity) keeps two
// identities apart however long they are.
import { createHash } from 'node:crypto';
import { MAX_SCANNED_KEY } from '../../domain/vulnerabilities/scanned-finding.ts';

const CVE = /^CVE-\d{4}-\d{4,}$/i;
const GHSA = /^GHSA(-[0-9a-z]{4}){3}$/i;
const HASH_CHARS = 16;

/** The first CVE ID among `ids`, upper-cased; `""` when there is none (as the API shows it). */
export function cveOf(ids: readonly unknown[]): string {
  const found = ids.find((id): id is string => typeof id === 'string' && CVE.test(id.trim()));
  return found ? found.trim().toUpperCase() : '';
}

/** The advisory that names a finding: the CVE, else a GHSA, else the first ID given. */
export function advisoryOf(ids: readonly unknown[]): string | undefined {
  const strings = ids.filter((id): id is string => typeof id === 'string' && id.trim() !== '').map((id) => id.trim());
  const cve = cveOf(strings);
  if (cve) return cve;
  const ghsa = strings.find((id) => GHSA.test(id));
  return ghsa ? `GHSA${ghsa.slice(4).toLowerCase()}` : strings[0];
}

function hashOf(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, HASH_CHARS);
}

/** Path-safe: letters, digits, `.`, `_`, `-`; starting with a letter or digit; at most `max`. */
function slug(text: string, max: number): string {
  return text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, max)
    .replace(/[-.]+$/, '');
}

function compose(readable: readonly string[], identity: readonly string[]): string {
  const hash = hashOf(identity);
  let room = MAX_SCANNED_KEY - HASH_CHARS - readable.length; // one `~` after each readable part
  const parts: string[] = [];
  for (const [i, text] of readable.entries()) {
    // The first part (advisory or rule) gets what it needs up to 32; the rest shares what is left.
    const share = i === 0 ? Math.min(32, room) : room;
    const part = slug(text, share);
    if (part) parts.push(part);
    room -= part.length;
  }
  // a hash alone may start with `-` or `_`: a key starts with a letter or digit
  return [...(parts.length ? parts : ['finding']), hash].join('~');
}

/** An advisory in a package: the same key whichever tool reports it, when both name the package alike. */
export function advisoryKey(advisory: string, pkg: PackageIdentity): string {
  return compose([advisory, pkg.name], ['advisory', advisory.toUpperCase(), pkg.identity]);
}

/** A rule at a place: `fingerprint` is what tells two places apart (see each format's rule). */
export function ruleKey(tool: string, ruleId: string, fingerprint: readonly string[]): string {
  return compose([ruleId], ['rule', tool, ruleId, ...fingerprint]);
}

export interface PackageIdentity {
  /** What tells packages apart: a purl without version, qualifiers and subpath, or ecosystem:name. */
  identity: string;
  /** The package's name, for the readable part of the key. */
  name: string;
}

const safeDecode = (part: string) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

/**
 * A package URL without its version, qualifiers and subpath, percent-decoded, with the purl
 * specification's case rules for the common types (so two tools writing the same package agree).
 */
export function purlIdentity(purl: string): PackageIdentity | undefined {
  const match = /^pkg:\/*([A-Za-z.+-][A-Za-z0-9.+-]*)\/(.+)$/.exec(purl.trim());
  if (!match) return undefined;
  const type = (match[1] as string).toLowerCase();
  let rest = (match[2] as string).split('#')[0]?.split('?')[0] ?? '';
  // the version follows the last `@` that does not start a segment (`%40scope` may be written `@scope`)
  const at = rest.lastIndexOf('@');
  if (at > 0 && rest[at - 1] !== '/') rest = rest.slice(0, at);
  let segments = rest.split('/').filter(Boolean).map(safeDecode);
  if (type === 'pypi') segments = segments.map((s) => s.toLowerCase().replace(/[-_.]+/g, '-'));
  if (['npm', 'github', 'bitbucket', 'deb', 'apk', 'composer'].includes(type)) segments = segments.map((s) => s.toLowerCase());
  if (!segments.length) return undefined;
  return { identity: `pkg:${type}/${segments.join('/')}`, name: segments.slice(-1)[0] as string };
}

// OSV ecosystems → purl types, so that OSV-Scanner (which names no purl) agrees with the others.
const PURL_TYPES: Record<string, string> = {
  npm: 'npm',
  pypi: 'pypi',
  go: 'golang',
  maven: 'maven',
  'crates.io': 'cargo',
  rubygems: 'gem',
  nuget: 'nuget',
  packagist: 'composer',
  pub: 'pub',
  hex: 'hex',
  swifturl: 'swift',
};

/** The identity of a package given by purl when there is one, else by ecosystem and name. */
export function packageIdentity(pkg: { purl?: string; ecosystem?: string; name: string }): PackageIdentity {
  const byPurl = pkg.purl ? purlIdentity(pkg.purl) : undefined;
  if (byPurl) return byPurl;
  const ecosystem = (pkg.ecosystem ?? '').trim();
  const type = PURL_TYPES[ecosystem.toLowerCase()];
  if (type) {
    const name = type === 'maven' ? pkg.name.replace(':', '/') : pkg.name;
    const viaPurl = purlIdentity(`pkg:${type}/${name.split('/').map(encodeURIComponent).join('/')}`);
    if (viaPurl) return viaPurl;
  }
  return { identity: `${ecosystem.toLowerCase()}:${pkg.name}`, name: pkg.name };
}
