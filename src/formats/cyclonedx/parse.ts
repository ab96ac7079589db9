// CycloneDX 1.4+ (JSON) vulnerabilities with their VEX analysis → scanned findings: one per
// vulnerability and affected component (`affects[].ref` → `components[]` by bom-ref). Mapping:
// docs/scanner-formats.md ("CycloneDX").
import type { ScannedFinding, ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { nameText } from '../../domain/vulnerabilities/scanned-text.ts';
import { advisoryKey, advisoryOf, cveOf, packageIdentity, purlIdentity } from '../scanners/finding-key.ts';
import { packageResource, scannedFinding, type RawVerdict } from '../scanners/finding.ts';
import { Held, MAX_HELD } from '../scanners/held.ts';
import { fileError, streamJson, walkInto, type ByteChunks, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import type { FileTop, SummaryWatch } from '../scanners/contract.ts';
import { fieldsOf, isObject, type Fields } from '../scanners/read.ts';
import { chooseSeverity, cvssScoreOf } from '../scanners/severity.ts';

/** Components remembered for `affects` references: beyond this a BOM is refused, naming the bound. */
export const MAX_COMPONENTS = 200_000;
// Of a component only these are kept (its nested components too); the rest is dropped while read.
const COMPONENT_KEPT = new Set(['bom-ref', 'name', 'version', 'purl', 'group', 'type', 'components']);
const VULNERABILITY_PRUNED = new Set(['proofOfConcept', 'evidence', 'tools', 'properties', 'credits']);
const IGNORED_STATES = new Set(['not_affected', 'false_positive']);
const CLOSED_STATES = new Set(['resolved', 'resolved_with_pedigree']);

interface Component {
  name: string;
  version?: string;
  purl?: string;
  group?: string;
}

function readComponent(f: Fields, into: Map<string, Component>): Component | undefined {
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

function mapVulnerability(
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

/** Reads a CycloneDX 1.4+ JSON BOM; yields its vulnerabilities' findings. */
export async function* parseCycloneDx(
  chunks: ByteChunks,
  file: FileTop,
  watch?: SummaryWatch,
): AsyncGenerator<ScannedFinding, ScanSummary> {
  const summary: ScanSummary = { format: 'cyclonedx', tool: 'CycloneDX', findings: 0, skipped: 0 };
  watch?.(summary);
  const components = new Map<string, Component>();
  let subject: Component | undefined;
  let bomFormat: unknown;
  let componentsDone = false;
  let inComponents = false;
  const held = new Held<{ value: unknown; path: PathPart[] }>(
    MAX_HELD,
    `expected the components before the vulnerabilities that name them: more than ${MAX_HELD} vulnerabilities come first`,
  );
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    const [top] = path;
    const start = file.plan(path, kind);
    if (start) return start;
    if (path.length === 1) {
      if (inComponents) componentsDone = true;
      inComponents = top === 'components';
      if (top === 'bomFormat' || top === 'specVersion' || top === 'metadata') return 'emit';
      if (top !== 'components' && top !== 'vulnerabilities') return 'skip';
      return walkInto(path, kind, 'array', `the ${top} (a list)`);
    }
    return path.length === 2 && (top === 'components' || top === 'vulnerabilities') ? 'emit' : 'skip';
  };
  const prune = (path: readonly PathPart[]) => {
    const last = path[path.length - 1];
    if (typeof last !== 'string') return false;
    if (path[0] === 'components') return !COMPONENT_KEPT.has(last);
    if (path[0] === 'vulnerabilities') return VULNERABILITY_PRUNED.has(last);
    return path[0] === 'metadata' && path.length === 2 && last !== 'component';
  };
  const map = function* (value: unknown, path: PathPart[]) {
    for (const finding of mapVulnerability(value, path, components, subject)) {
      summary.findings += 1;
      yield finding;
    }
  };
  for await (const { path, value } of streamJson(chunks, { plan, prune })) {
    const [top] = path;
    if (top === 'bomFormat') {
      bomFormat = value;
      if (value !== 'CycloneDX') throw fileError(path, 'expected “CycloneDX”');
    } else if (top === 'specVersion') {
      const [major, minor] = String(value).split('.').map(Number);
      if (typeof value !== 'string' || major !== 1 || (minor ?? 0) < 4)
        throw fileError(path, `expected 1.4 or later: vulnerabilities are read from CycloneDX 1.4 on, found “${String(value)}”`);
    } else if (top === 'metadata') {
      const meta = fieldsOf(value, path, 'the BOM’s metadata (an object)').object('component');
      if (meta) {
        subject = readComponent(meta, components);
        if (subject) summary.scope = nameText(subject.version ? `${subject.name}@${subject.version}` : subject.name);
      }
    } else if (top === 'components') readComponent(fieldsOf(value, path, 'a component (an object)'), components);
    else {
      // A reference not known yet may name a component further down: held until the end, bounded.
      const refs = isObject(value) && Array.isArray(value.affects) ? value.affects : [];
      const unresolved = refs.some((a) => isObject(a) && typeof a.ref === 'string' && !components.has(a.ref));
      if (unresolved && !componentsDone) held.hold({ value, path }, path);
      else yield* map(value, path);
    }
  }
  for (const h of held.take()) yield* map(h.value, h.path);
  if (bomFormat === undefined) throw file.missing('bomFormat');
  return summary;
}
