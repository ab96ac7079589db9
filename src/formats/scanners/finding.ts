// One place where a format's mapping becomes a ScannedFinding within the API's bounds, so every
// format shortens, cleans and counts alike.
import type { Severity } from '../../domain/vulnerabilities/shape.ts';
import {
  MAX_RESOURCES,
  MAX_TAGS,
  type ScannedFinding,
  type ScannedResource,
  type ScannedSource,
} from '../../domain/vulnerabilities/scanned-finding.ts';
import { justificationText, nameText, proseText, titleText } from '../../domain/vulnerabilities/scanned-text.ts';
import { pointer, type PathPart } from './json-stream.ts';
import { uniqueBy } from './read.ts';

export interface RawResource {
  name: string | undefined;
  type: string;
  tags?: readonly (string | undefined)[];
}

export type RawVerdict = { status: 'open' } | { status: 'ignored' | 'closed'; justification?: string | undefined };

export interface RawFinding {
  key: string;
  source: ScannedSource;
  tool: string;
  /** Title candidates, best first: the first that is not blank is used. */
  titles: readonly (string | undefined)[];
  severity: Severity;
  description?: string | undefined;
  remediation?: string | undefined;
  cvssScore?: number | undefined;
  fixAvailable: boolean;
  cveId: string;
  resources: readonly RawResource[];
  verdict: RawVerdict;
  /** Said when an ignored verdict comes without a reason (the format's own words for it). */
  defaultJustification: string;
  evidence?: 'scan' | 'statement';
  path: readonly PathPart[];
}

/** A package resource: `name@version`, its ecosystem as a tag. */
export const packageResource = (name: string, version: string | undefined, ecosystem: string | undefined): RawResource => ({
  name: version ? `${name}@${version}` : name,
  type: 'package',
  tags: [ecosystem],
});

/** A package named by a purl: `name@version` with the purl type as its tag; the purl itself otherwise. */
export function purlResource(purl: string): RawResource {
  const match = /^pkg:([^/]+)\/(?:([^?#]*)\/)?([^/?#@]+)(?:@([^?#]+))?/i.exec(purl.trim());
  if (!match) return { name: purl, type: 'package' };
  const decode = (s: string | undefined) => (s === undefined ? undefined : safeDecode(s));
  const scope = decode(match[2])?.split('/').at(-1);
  // an npm scope is part of the name people know (`@babel/core`); other namespaces are not
  const name = scope?.startsWith('@') ? `${scope}/${decode(match[3])}` : (decode(match[3]) as string);
  return packageResource(name, decode(match[4]), match[1]?.toLowerCase());
}

const safeDecode = (part: string) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

export function scannedFinding(raw: RawFinding): ScannedFinding {
  const resources: ScannedResource[] = [];
  for (const r of raw.resources) {
    const name = nameText(r.name);
    if (!name) continue;
    const tags = uniqueBy(
      (r.tags ?? []).map((t) => nameText(t)).filter((t): t is string => t !== undefined),
      (t) => t,
      MAX_TAGS,
    );
    resources.push({ name, type: r.type, tags });
  }
  const justification = raw.verdict.status === 'open' ? undefined : justificationText(raw.verdict.justification);
  const verdict: ScannedFinding['verdict'] =
    raw.verdict.status === 'open'
      ? { status: 'open' }
      : raw.verdict.status === 'ignored'
        ? {
            status: 'ignored',
            justification: justification ?? justificationText(raw.defaultJustification) ?? 'The tool marks it as not a problem.',
          }
        : justification
          ? { status: 'closed', justification }
          : { status: 'closed' };
  const finding: ScannedFinding = {
    key: raw.key,
    source: raw.source,
    tool: nameText(raw.tool) ?? 'unknown tool',
    title: raw.titles.map(titleText).find((t) => t !== undefined) ?? raw.key,
    severity: raw.severity,
    fixAvailable: raw.fixAvailable ? 'yes' : 'no',
    cveId: raw.cveId,
    affectedResources: uniqueBy(resources, (r) => `${r.type}\u0000${r.name}`, MAX_RESOURCES),
    verdict,
    evidence: raw.evidence ?? 'scan',
    at: pointer(raw.path),
  };
  const description = proseText(raw.description);
  if (description) finding.description = description;
  const remediation = proseText(raw.remediation);
  if (remediation) finding.remediation = remediation;
  if (raw.cvssScore !== undefined) finding.cvssScore = raw.cvssScore;
  return finding;
}
