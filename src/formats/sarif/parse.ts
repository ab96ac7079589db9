// SARIF 2.1.0 (OASIS) → scanned findings: what GitHub code scanning, Snyk, Semgrep, Trivy and
// Grype can all write. The mapping is in docs/scanner-formats.md ("SARIF 2.1.0"). Read as a
// stream: each result is built alone and the run's rules are kept (they are per tool, not per
// result), so memory follows the rule table, not the number of results.
import type { ScannedFinding, ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import type { Severity } from '../../domain/vulnerabilities/shape.ts';
import { cveOf, ruleKey } from '../scanners/finding-key.ts';
import { packageResource, scannedFinding, type RawResource, type RawVerdict } from '../scanners/finding.ts';
import { Held, MAX_HELD } from '../scanners/held.ts';
import { fileError, streamJson, walkInto, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import type { FormatReader } from '../scanners/contract.ts';
import { fieldsOf, type Fields } from '../scanners/read.ts';
import { cvssScoreOf, severityOfScore } from '../scanners/severity.ts';
import { sourceOfTool } from '../../domain/vulnerabilities/source-of-tool.ts';
import { nameText } from '../../domain/vulnerabilities/scanned-text.ts';

/** Result kinds that are not problems: counted as skipped. */
const NOT_PROBLEMS = new Set(['pass', 'notApplicable', 'informational']);
/** SARIF level → severity when the rule gives no security-severity score. */
const LEVELS: Record<string, Severity> = { error: 'high', warning: 'medium', note: 'low', none: 'low' };
// Parts of a result nobody maps, dropped while reading (code flows can be thousands of locations).
const RESULT_PRUNED = new Set([
  'codeFlows',
  'graphs',
  'graphTraversals',
  'stacks',
  'relatedLocations',
  'attachments',
  'webRequest',
  'webResponse',
  'provenance',
  'artifactChanges',
  'snippet',
  'contextRegion',
]);
const TOOL_PRUNED = new Set(['markdown', 'notifications', 'taxa', 'supportedTaxonomies', 'locations', 'contents', 'translationMetadata']);

interface Rule {
  id?: string;
  name?: string;
  shortDescription?: string;
  fullDescription?: string;
  help?: string;
  helpUri?: string;
  level?: string;
  score?: number;
  /** `messageStrings`: message templates a result names by `message.id` */
  messages: Map<string, string>;
}

interface Tool {
  name: string;
  /** rules per tool component: index 0 is the driver, n + 1 is extensions[n] */
  components: Rule[][];
  byId: Map<string, Rule>;
}

const text = (f: Fields | undefined, key: string) => f?.object(key)?.string('text');

function readRule(f: Fields): Rule {
  const props = f.object('properties');
  const score = cvssScoreOf(props?.raw['security-severity']);
  return {
    id: f.string('id'),
    name: f.string('name'),
    shortDescription: text(f, 'shortDescription'),
    fullDescription: text(f, 'fullDescription'),
    help: text(f, 'help'),
    helpUri: f.string('helpUri'),
    level: f.object('defaultConfiguration')?.string('level'),
    score,
    messages: new Map(
      Object.keys(f.object('messageStrings')?.raw ?? {}).flatMap((id) => {
        const template = f.object('messageStrings')?.object(id)?.string('text');
        return template ? [[id, template] as const] : [];
      }),
    ),
  };
}

function readTool(value: unknown, path: PathPart[]): Tool {
  const tool = fieldsOf(value, path, 'the run’s tool (an object with a driver)');
  const driver = tool.object('driver');
  if (!driver) throw fileError([...path, 'driver'], 'expected the tool’s driver (an object with a name)');
  const name = driver.string('name');
  if (!name) throw fileError([...path, 'driver', 'name'], 'expected the tool’s name');
  const components = [driver, ...tool.objects('extensions')].map((c) => c.objects('rules').map(readRule));
  const byId = new Map<string, Rule>();
  for (const rules of components) for (const rule of rules) if (rule.id && !byId.has(rule.id)) byId.set(rule.id, rule);
  return { name, components, byId };
}

/** The message's text, or the rule's template it names by `id`, with `{0}` filled from `arguments`. */
function messageText(message: Fields | undefined, rule: Rule | undefined): string | undefined {
  const id = message?.string('id');
  const template = message?.string('text') ?? (id ? rule?.messages.get(id) : undefined);
  if (!template) return undefined;
  const args = message?.strings('arguments') ?? [];
  return template.replace(/\{(\d+)\}/g, (whole, n: string) => args[Number(n)] ?? whole);
}

function suppressionVerdict(result: Fields): RawVerdict {
  const suppressions = result.objects('suppressions');
  if (result.string('baselineState') === 'absent')
    return { status: 'closed', justification: 'The tool reports it absent from this scan (baselineState “absent”).' };
  if (!suppressions.length) return { status: 'open' };
  // A suppression under review or rejected does not suppress the result.
  const statuses = suppressions.map((s) => s.string('status') ?? 'accepted');
  if (statuses.some((s) => s !== 'accepted')) return { status: 'open' };
  const reasons = suppressions.map((s) => s.string('justification')).filter((j): j is string => j !== undefined);
  const kinds = [...new Set(suppressions.map((s) => s.string('kind') ?? 'external'))];
  return {
    status: 'ignored',
    justification: reasons.length ? reasons.join('\n') : `Suppressed by the tool (${kinds.join(', ')}), with no justification given.`,
  };
}

/** The sorted `name=value` entries of a fingerprint object. */
function fingerprintEntries(f: Fields | undefined): string[] {
  if (!f) return [];
  return Object.keys(f.raw)
    .sort()
    .map((k) => `${k}=${String(f.raw[k])}`);
}

// The package a result is about, as Trivy's message names it ("Package: libssl1.1\nInstalled Version:
// 1.1.1c-r0\n…"): one rule (a CVE) has a result per package, and the rule's words are the same for each.
const PACKAGE_LINE = /^Package: *(\S[^\n]*?) *$/m;
const VERSION_LINE = /^Installed Version: *(\S[^\n]*?) *$/m;

/** The package and version the message names, if it names one. */
function packageNamed(message: string | undefined): { name: string; version: string | undefined } | undefined {
  const name = message ? PACKAGE_LINE.exec(message)?.[1] : undefined;
  return name ? { name, version: message ? VERSION_LINE.exec(message)?.[1] : undefined } : undefined;
}

function mapResult(tool: Tool, value: unknown, path: PathPart[]): ScannedFinding | undefined {
  const result = fieldsOf(value, path, 'a result (an object)');
  const kind = result.string('kind') ?? 'fail';
  if (NOT_PROBLEMS.has(kind)) return undefined;
  const ref = result.object('rule');
  const index = result.number('ruleIndex') ?? ref?.number('index');
  const componentIndex = ref?.object('toolComponent')?.number('index');
  const component = tool.components[componentIndex === undefined ? 0 : componentIndex + 1];
  const ruleId = result.string('ruleId') ?? ref?.string('id');
  const rule = (index !== undefined ? component?.[index] : undefined) ?? (ruleId ? tool.byId.get(ruleId) : undefined);
  const id = ruleId ?? rule?.id ?? 'result';
  const message = result.object('message');
  const description = messageText(message, rule);

  const locations = result.objects('locations');
  const places = locations.map((l) => {
    const physical = l.object('physicalLocation');
    const artifact = physical?.object('artifactLocation');
    const region = physical?.object('region');
    const logical = l.objects('logicalLocations').map((ll) => ll.string('fullyQualifiedName') ?? ll.string('name') ?? '');
    return {
      uri: artifact?.string('uri'),
      region: ['startLine', 'startColumn', 'endLine', 'endColumn', 'charOffset'].map((k) => String(region?.number(k) ?? '')),
      logical,
    };
  });
  const first = places[0];
  // The key (docs/scanner-formats.md): the tool's fingerprints when it gives them, else the
  // location and the message, so two results that differ only in location are two findings.
  const fingerprints = fingerprintEntries(result.object('fingerprints'));
  const partial = fingerprintEntries(result.object('partialFingerprints'));
  const place =
    fingerprints.length > 0
      ? ['fingerprints', ...fingerprints]
      : partial.length > 0
        ? ['partialFingerprints', ...partial]
        : ['location', ...(first ? [...first.region, ...first.logical] : []), description ?? ''];
  const key = ruleKey(tool.name, id, [first?.uri ?? '', ...place]);

  const props = result.object('properties');
  const score = cvssScoreOf(props?.raw['security-severity']) ?? rule?.score;
  const level = result.string('level') ?? rule?.level ?? 'warning';
  const severity = score !== undefined ? severityOfScore(score) : (LEVELS[level] ?? 'medium');
  const pkg = packageNamed(description);
  const resources: RawResource[] = [
    ...(pkg ? [packageResource(pkg.name, pkg.version, undefined)] : []),
    ...places.map((p) => ({ name: p.uri, type: 'file' })),
  ];
  const helpUri = rule?.helpUri ? `See ${rule.helpUri}` : undefined;
  const words = rule?.shortDescription ?? rule?.name;
  return scannedFinding({
    key,
    source: sourceOfTool(tool.name),
    tool: tool.name,
    // a result about a package is titled as Trivy JSON's: `<rule> in <package>: <the rule's words>`
    titles: pkg ? [`${id} in ${pkg.name}${words ? `: ${words}` : ''}`] : [rule?.shortDescription, description, rule?.name, id],
    severity,
    description: description ?? rule?.fullDescription,
    remediation: [rule?.help, helpUri].filter(Boolean).join('\n\n') || undefined,
    cvssScore: score,
    fixAvailable: result.array('fixes').length > 0,
    cveId: cveOf([/^CVE-\d{4}-\d{4,}/i.exec(id)?.[0]]),
    resources,
    verdict: suppressionVerdict(result),
    defaultJustification: 'Suppressed by the tool.',
    path,
  });
}

function planOf(path: readonly PathPart[], kind: ValueKind): Plan {
  const [top, , member, index] = path;
  if (path.length === 1) {
    if (top === 'version') return 'emit';
    if (top !== 'runs') return 'skip';
    return walkInto(path, kind, 'array', 'the runs (a list)');
  }
  if (top !== 'runs') return 'skip';
  if (path.length === 2) {
    return walkInto(path, kind, 'object', 'a run (an object)');
  }
  if (path.length === 3) {
    if (member === 'tool' || member === 'versionControlProvenance' || member === 'properties') return 'emit';
    if (member !== 'results') return 'skip';
    return walkInto(path, kind, 'array', 'the run’s results (a list)');
  }
  return path.length === 4 && member === 'results' && typeof index === 'number' ? 'emit' : 'skip';
}

function pruneOf(path: readonly PathPart[]): boolean {
  const last = path[path.length - 1];
  if (typeof last !== 'string') return false;
  return path[2] === 'results' ? RESULT_PRUNED.has(last) : path[2] === 'tool' ? TOOL_PRUNED.has(last) : false;
}

function scopeOf(member: PathPart, value: unknown): string | undefined {
  if (member === 'versionControlProvenance' && Array.isArray(value)) {
    const first = value[0];
    return typeof first === 'object' && first && typeof (first as { repositoryUri?: unknown }).repositoryUri === 'string'
      ? ((first as { repositoryUri: string }).repositoryUri as string)
      : undefined;
  }
  if (member === 'properties' && typeof value === 'object' && value) {
    const image = (value as { imageName?: unknown }).imageName;
    return typeof image === 'string' ? image : undefined;
  }
  return undefined;
}

/** Reads a SARIF 2.1.0 log; yields its findings, returns what the file says of itself. */
export const parseSarif: FormatReader = async function* (chunks, file, watch) {
  const summary: ScanSummary = { format: 'sarif', findings: 0, skipped: 0 };
  watch?.(summary);
  let version: unknown;
  let sawRuns = false;
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    const start = file.plan(path, kind);
    if (start) return start;
    if (path.length === 1 && path[0] === 'runs') sawRuns = true;
    return planOf(path, kind);
  };
  let runIndex = -1;
  let tool: Tool | undefined;
  const held = new Held<{ value: unknown; path: PathPart[] }>(
    MAX_HELD,
    `expected the run’s tool before its results: more than ${MAX_HELD} results come before runs[].tool`,
  );
  const endRun = () => {
    if (runIndex >= 0 && !tool && held.size > 0)
      throw fileError(['runs', runIndex, 'tool'], 'expected the run’s tool (runs[].tool.driver.name)');
  };
  const map = function* (value: unknown, path: PathPart[]) {
    const finding = mapResult(tool as Tool, value, path);
    if (finding) {
      summary.findings += 1;
      yield finding;
    } else summary.skipped += 1;
  };

  for await (const { path, value } of streamJson(chunks, { plan, prune: pruneOf })) {
    if (path[0] === 'version') {
      version = value;
      if (value !== '2.1.0') throw fileError(['version'], 'expected “2.1.0”: only SARIF 2.1.0 is read');
      continue;
    }
    const run = path[1] as number;
    if (run !== runIndex) {
      endRun();
      runIndex = run;
      tool = undefined;
    }
    const member = path[2] as string;
    if (member === 'tool') {
      tool = readTool(value, path);
      summary.tool ??= nameText(tool.name);
      for (const h of held.take()) yield* map(h.value, h.path);
    } else if (member === 'results') {
      if (!tool) held.hold({ value, path }, path);
      else yield* map(value, path);
    } else {
      const scope = nameText(scopeOf(member, value));
      if (scope) summary.scope ??= scope;
    }
  }
  endRun();
  if (version === undefined) throw file.missing('version');
  if (!sawRuns) throw file.missing('runs');
  return summary;
};
