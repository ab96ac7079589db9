// Grype JSON (`grype … -o json`) → scanned findings: `matches` are open, `ignoredMatches` keep the
// ignore rule's reason (or VEX status). Mapping: docs/scanner-formats.md ("Grype JSON").
import type { ScannedFinding, ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { nameText } from '../../domain/vulnerabilities/scanned-text.ts';
import { advisoryKey, advisoryOf, cveOf, packageIdentity } from '../scanners/finding-key.ts';
import { packageResource, scannedFinding, type RawResource, type RawVerdict } from '../scanners/finding.ts';
import { fileError, streamJson, walkInto, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import type { FormatReader } from '../scanners/contract.ts';
import { fieldsOf, isObject, type Fields } from '../scanners/read.ts';
import { chooseSeverity, cvssScoreOf } from '../scanners/severity.ts';

const TOOL = 'Grype';
const LISTS = new Set(['matches', 'ignoredMatches']);
// Parts nobody maps, dropped while reading (an image's manifest and config are whole documents).
const PRUNED = new Set([
  'matchDetails',
  'metadata',
  'cpes',
  'licenses',
  'upstreams',
  'layers',
  'manifest',
  'config',
  'configuration',
  'db',
]);

/** The highest CVSS v3+ base score among the entries, else the highest of any version. */
function scoreOf(entries: Fields[]): number | undefined {
  const scored = entries
    .map((c) => ({ version: c.string('version') ?? '', score: cvssScoreOf(c.object('metrics')?.raw.baseScore) }))
    .filter((c): c is { version: string; score: number } => c.score !== undefined);
  const modern = scored.filter((c) => !c.version.startsWith('2'));
  const pool = modern.length ? modern : scored;
  return pool.length ? Math.max(...pool.map((c) => c.score)) : undefined;
}

function ignoredVerdict(match: Fields): RawVerdict {
  const rules = match.objects('appliedIgnoreRules');
  if (rules.some((r) => r.string('vex-status') === 'fixed'))
    return { status: 'closed', justification: 'A VEX document applied by Grype states it is fixed.' };
  const reasons = rules.map((r) => {
    const vex = r.string('vex-status');
    const why = r.string('reason') ?? r.string('vex-justification');
    return [vex && `VEX ${vex}`, why].filter(Boolean).join(': ');
  });
  return { status: 'ignored', justification: reasons.filter(Boolean).join('\n') || undefined };
}

function mapMatch(value: unknown, path: PathPart[], ignored: boolean): ScannedFinding {
  const match = fieldsOf(value, path, 'a match (an object)');
  const vuln = match.object('vulnerability');
  if (!vuln) throw fileError([...path, 'vulnerability'], 'expected the matched vulnerability (an object)');
  const artifact = match.object('artifact');
  if (!artifact) throw fileError([...path, 'artifact'], 'expected the matched package (an object)');
  const id = vuln.string('id');
  if (!id) throw fileError([...path, 'vulnerability', 'id'], 'expected the vulnerability’s ID');
  const name = artifact.string('name');
  if (!name) throw fileError([...path, 'artifact', 'name'], 'expected the package’s name');
  const version = artifact.string('version');
  const related = match.objects('relatedVulnerabilities');
  const ids = [id, ...related.map((r) => r.string('id'))];
  const score = scoreOf(vuln.objects('cvss')) ?? scoreOf(related.flatMap((r) => r.objects('cvss')));
  const fix = vuln.object('fix');
  const fixVersions = fix?.strings('versions') ?? [];
  const fixState = fix?.string('state');
  const fixed = fixState === 'fixed' && fixVersions.length > 0;
  const ecosystem = artifact.string('language') ?? artifact.string('type');
  const resources: RawResource[] = [
    packageResource(name, version, artifact.string('type')),
    ...artifact.objects('locations').map((l) => ({ name: l.string('path'), type: 'file' })),
  ];
  const description = vuln.string('description') ?? related.map((r) => r.string('description')).find(Boolean);
  return scannedFinding({
    key: advisoryKey(advisoryOf(ids) ?? id, packageIdentity({ purl: artifact.string('purl'), ecosystem, name })),
    source: 'import',
    tool: TOOL,
    titles: [`${id} in ${name}`],
    severity: chooseSeverity(vuln.string('severity'), score),
    description,
    remediation: fixed
      ? `Upgrade ${name}${version ? ` from ${version}` : ''} to ${fixVersions.join(' or ')}.`
      : fixState === 'wont-fix'
        ? 'The maintainers will not fix it (Grype fix state “wont-fix”).'
        : undefined,
    cvssScore: score,
    fixAvailable: fixed,
    cveId: cveOf(ids),
    resources,
    verdict: ignored ? ignoredVerdict(match) : { status: 'open' },
    defaultJustification: 'Ignored by a Grype ignore rule.',
    path,
  });
}

function scopeOf(source: unknown): string | undefined {
  if (!isObject(source)) return undefined;
  const target = source.target;
  if (typeof target === 'string') return target;
  if (!isObject(target)) return undefined;
  const input = target.userInput;
  return typeof input === 'string' ? input : undefined;
}

/** Reads a Grype JSON report; yields its findings, returns what the file says of itself. */
export const parseGrype: FormatReader = async function* (chunks, file, watch) {
  const summary: ScanSummary = { format: 'grype', tool: TOOL, findings: 0, skipped: 0 };
  watch?.(summary);
  let sawMatches = false;
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    const [top] = path;
    const start = file.plan(path, kind);
    if (start) return start;
    if (path.length === 1) {
      if (top === 'source' || top === 'descriptor') return 'emit';
      if (!LISTS.has(top as string)) return 'skip';
      if (top === 'matches') sawMatches = true;
      return walkInto(path, kind, 'array', 'a list of matches');
    }
    return path.length === 2 && LISTS.has(top as string) ? 'emit' : 'skip';
  };
  const prune = (path: readonly PathPart[]) => {
    const last = path[path.length - 1];
    return typeof last === 'string' && PRUNED.has(last);
  };
  for await (const { path, value } of streamJson(chunks, { plan, prune })) {
    const [top] = path;
    if (top === 'source') summary.scope = nameText(scopeOf(value));
    else if (top === 'descriptor') {
      const name = isObject(value) && typeof value.name === 'string' ? value.name : undefined;
      if (name && name.toLowerCase() !== 'grype') throw fileError(['descriptor', 'name'], `expected “grype”, found “${name}”`);
    } else {
      summary.findings += 1;
      yield mapMatch(value, path, top === 'ignoredMatches');
    }
  }
  if (!sawMatches) throw file.missing('matches');
  return summary;
};
