// A CycloneDX BOM's parts mapped to scanned findings, whichever encoding carried them: the JSON
// reader (./parse.ts) streams them, the XML reader (../cyclonedx-xml/parse.ts) turns its document
// into the same shape first, so one BOM in either encoding gives the same findings. Mapping:
// docs/scanner-formats.md ("CycloneDX").
import type { ScannedFinding, ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { nameText } from '../../domain/vulnerabilities/scanned-text.ts';
import { advisoryKey, advisoryOf, cveOf, packageIdentity, purlIdentity } from '../scanners/finding-key.ts';
import { packageResource, scannedFinding, type RawVerdict } from '../scanners/finding.ts';
import { fileError, type PathPart } from '../scanners/json-stream.ts';
import { fieldsOf, type Fields } from '../scanners/read.ts';
import { chooseSeverity, cvssScoreOf } from '../scanners/severity.ts';

/** Components remembered for `affects` references: beyond this a BOM is refused, naming the bound. */
export const MAX_COMPONENTS = 200_000;
const IGNORED_STATES = new Set(['not_affected', 'false_positive']);
const CLOSED_STATES = new Set(['resolved', 'resolved_with_pedigree']);

export interface Component {
  name: string;
  version?: string;
  purl?: string;
  group?: string;
}

export function readComponent(f: Fields, into: Map<string, Component>): Component | undefined {
  const name = f.string('name');
  const component: Component | undefined = name
    ? { name: f.string('group') ? `${f.string('group')}/${name}` : name, version: f.string('version'), purl: f.string('purl') }
    : undefined;
  const ref = f.string('bom-ref');
  if (ref && component) {
    if (into.size >= MAX_COMPONENTS && !into.has(ref))
      throw fileError([...f.path, 'bom-ref'], `expected at most ${MAX_COMPONENTS} components in a BOM`);
    into.set(ref, component);
  }
  for (const nested of f.objects('components')) readComponent(nested, into);
  return component;
}

/** The best rating: the highest CVSS score (v3 and later before v2), and its severity word. */
function ratingOf(ratings: Fields[]): { score?: number; word?: string } {
  const scored = ratings.map((r) => ({ score: cvssScoreOf(r.raw.score), word: r.string('severity'), method: r.string('method') ?? '' }));
  const withScore = scored.filter((r) => r.score !== undefined);
  const modern = withScore.filter((r) => r.method !== 'CVSSv2');
  const pool = modern.length ? modern : withScore;
  const best = pool.sort((a, b) => (b.score as number) - (a.score as number))[0];
  return { score: best?.score, word: best?.word ?? scored.find((r) => r.word && r.word !== 'unknown')?.word };
}

const purlType = (purl: string | undefined) => (purl ? /^pkg:([^/]+)\//i.exec(purl)?.[1]?.toLowerCase() : undefined);

function verdictOf(analysis: Fields | undefined): RawVerdict {
  const state = analysis?.string('state');
  if (!state) return { status: 'open' };
  const reason = [analysis?.string('justification'), analysis?.string('detail')].filter(Boolean).join(': ');
  if (IGNORED_STATES.has(state)) return { status: 'ignored', justification: `${state}${reason ? ` (${reason})` : ''}` };
  if (CLOSED_STATES.has(state)) return { status: 'closed', justification: `${state}${reason ? ` (${reason})` : ''}` };
  return { status: 'open' };
}

export function mapVulnerability(
  value: unknown,
  path: PathPart[],
  components: Map<string, Component>,
  subject: Component | undefined,
): ScannedFinding[] {
  const v = fieldsOf(value, path, 'a vulnerability (an object)');
  const id = v.string('id');
  if (!id) throw fileError([...path, 'id'], 'expected the vulnerability’s ID');
  const ids = [id, ...v.objects('references').map((r) => r.string('id'))];
  const advisory = advisoryOf(ids) ?? id;
  const { score, word } = ratingOf(v.objects('ratings'));
  const analysis = v.object('analysis');
  const responses = analysis?.strings('response') ?? [];
  const refs = v.objects('affects').map((a) => ({ ref: a.string('ref'), at: a.path }));
  // A vulnerability that names no component is about the BOM's subject.
  const targets = refs.length ? refs : [{ ref: undefined, at: path }];
  // No rating and no description: a VEX statement about a finding rather than a detection.
  const statement = v.objects('ratings').length === 0 && !v.string('description') && analysis !== undefined;
  return targets.map(({ ref, at }) => {
    const component = (ref ? components.get(ref) : undefined) ?? (ref ? undefined : subject);
    const byRef = ref && !component ? purlIdentity(ref) : undefined;
    const identity = component
      ? packageIdentity({ purl: component.purl, name: component.name })
      : (byRef ?? { identity: `bom-ref:${ref ?? ''}`, name: ref ?? '' });
    const name = component?.name ?? identity.name;
    return scannedFinding({
      key: advisoryKey(advisory, identity),
      source: 'import',
      tool: 'CycloneDX',
      titles: [`${advisory} in ${name}`],
      severity: chooseSeverity(word, score),
      description: v.string('description') ?? v.string('detail'),
      remediation: v.string('recommendation') ?? v.string('workaround'),
      cvssScore: score,
      fixAvailable: responses.includes('update') || responses.includes('rollback'),
      cveId: cveOf(ids),
      resources: [packageResource(name, component?.version, purlType(component?.purl ?? ref))],
      verdict: verdictOf(analysis),
      defaultJustification: 'Marked not affected in the BOM’s analysis.',
      evidence: statement ? 'statement' : 'scan',
      path: at,
    });
  });
}

/** A specification version whose vulnerabilities are read: 1.4 and later (`"1.5"`). */
export function isReadVersion(value: unknown): boolean {
  const [major, minor] = String(value).split('.').map(Number);
  return typeof value === 'string' && major === 1 && (minor ?? 0) >= 4;
}

/** What a BOM of another version is told. */
export const versionExpected = (value: unknown) =>
  `expected 1.4 or later: vulnerabilities are read from CycloneDX 1.4 on, found “${String(value)}”`;

/**
 * One BOM being mapped: the components its vulnerabilities name (by bom-ref), the BOM's subject
 * (metadata.component, the scope) and the summary it fills in. Each method takes one top-level
 * part as the JSON encoding writes it, with its place in that encoding.
 */
export class BomMapping {
  readonly components = new Map<string, Component>();
  private subject: Component | undefined;
  private readonly summary: ScanSummary;
  constructor(summary: ScanSummary) {
    this.summary = summary;
  }

  bomFormat(value: unknown, path: PathPart[]): void {
    if (value !== 'CycloneDX') throw fileError(path, 'expected “CycloneDX”');
  }

  specVersion(value: unknown, path: PathPart[]): void {
    if (!isReadVersion(value)) throw fileError(path, versionExpected(value));
  }

  metadata(value: unknown, path: PathPart[]): void {
    const meta = fieldsOf(value, path, 'the BOM’s metadata (an object)').object('component');
    if (!meta) return;
    this.subject = readComponent(meta, this.components);
    if (this.subject)
      this.summary.scope = nameText(this.subject.version ? `${this.subject.name}@${this.subject.version}` : this.subject.name);
  }

  component(value: unknown, path: PathPart[]): void {
    readComponent(fieldsOf(value, path, 'a component (an object)'), this.components);
  }

  /** The vulnerability's findings, counted in the summary. */
  *vulnerability(value: unknown, path: PathPart[]): Generator<ScannedFinding> {
    for (const finding of mapVulnerability(value, path, this.components, this.subject)) {
      this.summary.findings += 1;
      yield finding;
    }
  }
}
