// Trivy JSON (`trivy … --format json`, SchemaVersion 2) → scanned findings: vulnerabilities,
// suppressed vulnerabilities (`ModifiedFindings`, with --show-suppressed) and misconfigurations.
// Mapping: docs/scanner-formats.md ("Trivy JSON").
import type { ScannedFinding, ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { nameText } from '../../domain/vulnerabilities/scanned-text.ts';
import { advisoryKey, advisoryOf, cveOf, packageIdentity, ruleKey } from '../scanners/finding-key.ts';
import { packageResource, scannedFinding, type RawResource, type RawVerdict } from '../scanners/finding.ts';
import { Held, MAX_HELD } from '../scanners/held.ts';
import { fileError, streamJson, walkInto, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import type { FormatReader } from '../scanners/contract.ts';
import { fieldsOf, type Fields } from '../scanners/read.ts';
import { chooseSeverity, cvssScoreOf } from '../scanners/severity.ts';

const TOOL = 'Trivy';
const ITEMS = new Set(['Vulnerabilities', 'Misconfigurations', 'ModifiedFindings']);
const HEADER = new Set(['Target', 'Class', 'Type']);
// Parts nobody maps, dropped while reading (a misconfiguration's code excerpt can be long).
const PRUNED = new Set(['Layer', 'DataSource', 'References', 'CweIDs', 'Code', 'Occurrences', 'Traces']);

interface Target {
  target?: string;
  class?: string;
  type?: string;
}

/** The CVSS score of the severity's own source, else NVD's, else the first: v3 before v2. */
function cvssOf(vuln: Fields, source: string | undefined): number | undefined {
  const cvss = vuln.object('CVSS');
  if (!cvss) return undefined;
  const sources = [source, 'nvd', ...Object.keys(cvss.raw)].filter((s): s is string => typeof s === 'string');
  for (const name of sources) {
    const entry = cvss.object(name);
    const score = cvssScoreOf(entry?.raw.V3Score) ?? cvssScoreOf(entry?.raw.V40Score) ?? cvssScoreOf(entry?.raw.V2Score);
    if (score !== undefined) return score;
  }
  return undefined;
}

function vulnerability(value: unknown, path: PathPart[], target: Target, verdict: RawVerdict): ScannedFinding {
  const v = fieldsOf(value, path, 'a vulnerability (an object)');
  const id = v.string('VulnerabilityID');
  if (!id) throw fileError([...path, 'VulnerabilityID'], 'expected the vulnerability’s ID');
  const name = v.string('PkgName');
  if (!name) throw fileError([...path, 'PkgName'], 'expected the package’s name');
  const installed = v.string('InstalledVersion');
  const fixed = v.string('FixedVersion');
  const purl = v.object('PkgIdentifier')?.string('PURL');
  const score = cvssOf(v, v.string('SeveritySource'));
  const primaryUrl = v.string('PrimaryURL');
  const resources: RawResource[] = [packageResource(name, installed, target.type)];
  if (v.string('PkgPath')) resources.push({ name: v.string('PkgPath'), type: 'file' });
  else if (target.class !== 'os-pkgs') resources.push({ name: target.target, type: 'file' });
  // Trivy's Status is the vendor's fix state; only `not_affected` says the package is not a problem.
  const vendorVerdict: RawVerdict =
    v.string('Status') === 'not_affected'
      ? { status: 'ignored', justification: 'The vendor states this package is not affected (Trivy status “not_affected”).' }
      : { status: 'open' };
  const title = v.string('Title');
  return scannedFinding({
    key: advisoryKey(advisoryOf([id]) ?? id, packageIdentity({ purl, ecosystem: target.type, name })),
    source: 'import',
    tool: TOOL,
    titles: [`${id} in ${name}${title ? `: ${title}` : ''}`],
    severity: chooseSeverity(v.string('Severity'), score),
    description: v.string('Description'),
    remediation: [
      fixed ? `Upgrade ${name}${installed ? ` from ${installed}` : ''} to ${fixed}.` : undefined,
      primaryUrl && `See ${primaryUrl}`,
    ]
      .filter(Boolean)
      .join('\n\n'),
    cvssScore: score,
    fixAvailable: fixed !== undefined,
    cveId: cveOf([id]),
    resources,
    verdict: verdict.status === 'open' ? vendorVerdict : verdict,
    defaultJustification: 'Suppressed in Trivy.',
    path,
  });
}

function misconfiguration(value: unknown, path: PathPart[], target: Target): ScannedFinding | undefined {
  const m = fieldsOf(value, path, 'a misconfiguration (an object)');
  const status = m.string('Status') ?? 'FAIL';
  if (status === 'PASS') return undefined;
  const id = m.string('ID') ?? m.string('AVDID');
  if (!id) throw fileError([...path, 'ID'], 'expected the check’s ID');
  const cause = m.object('CauseMetadata');
  const resource = cause?.string('Resource');
  const lines = [cause?.number('StartLine'), cause?.number('EndLine')].map((n) => String(n ?? ''));
  const primaryUrl = m.string('PrimaryURL');
  return scannedFinding({
    // A check at a place: the target, the cloud or IaC resource, the lines and Trivy's message.
    key: ruleKey(TOOL, id, [target.target ?? '', resource ?? '', ...lines, m.string('Message') ?? '']),
    source: 'import',
    tool: TOOL,
    titles: [`${id}: ${m.string('Title') ?? m.string('Message') ?? ''}`],
    severity: chooseSeverity(m.string('Severity'), undefined),
    description: [m.string('Message'), m.string('Description')].filter(Boolean).join('\n\n'),
    remediation: [m.string('Resolution'), primaryUrl && `See ${primaryUrl}`].filter(Boolean).join('\n\n'),
    fixAvailable: false,
    cveId: '',
    resources: [
      { name: target.target, type: 'file' },
      { name: resource, type: 'resource' },
    ],
    verdict:
      status === 'EXCEPTION'
        ? { status: 'ignored', justification: 'Trivy reports an exception for this check (an ignore rule or a policy exception).' }
        : { status: 'open' },
    defaultJustification: 'Excepted in Trivy.',
    path,
  });
}

function modified(value: unknown, path: PathPart[], target: Target): ScannedFinding | undefined {
  const m = fieldsOf(value, path, 'a modified finding (an object)');
  const finding = m.raw.Finding;
  if ((m.string('Type') ?? 'vulnerability') !== 'vulnerability' || finding === undefined) return undefined;
  const status = m.string('Status');
  const source = m.string('Source');
  const said = m.string('Statement');
  const statement = said ? `${said}${source ? ` (${source})` : ''}` : `Marked ${status ?? 'modified'} by ${source ?? 'Trivy'}.`;
  const verdict: RawVerdict =
    status === 'fixed'
      ? { status: 'closed', justification: statement }
      : status === 'not_affected' || status === 'ignored' // a VEX statement, or .trivyignore
        ? { status: 'ignored', justification: statement }
        : { status: 'open' };
  return vulnerability(finding, [...path, 'Finding'], target, verdict);
}

/** Reads a Trivy JSON report; yields its findings, returns what the file says of itself. */
export const parseTrivy: FormatReader = async function* (chunks, file, watch) {
  const summary: ScanSummary = { format: 'trivy', tool: TOOL, findings: 0, skipped: 0 };
  watch?.(summary);
  let sawSchema = false;
  let current = -1;
  let target: Target = {};
  const held = new Held<{ value: unknown; path: PathPart[] }>(
    MAX_HELD,
    `expected Results[].Target before the result’s findings: more than ${MAX_HELD} findings come first`,
  );
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    const [top, , member] = path;
    if (path.length === 0 && kind === 'array')
      throw fileError([], 'expected a Trivy JSON report (SchemaVersion 2, an object): this list is the format of Trivy before 0.20');
    const start = file.plan(path, kind);
    if (start) return start;
    if (path.length === 1) {
      if (top === 'SchemaVersion' || top === 'ArtifactName') return 'emit';
      if (top !== 'Results') return 'skip';
      return walkInto(path, kind, 'array', 'the results (a list)');
    }
    if (top !== 'Results') return 'skip';
    if (path.length === 2) {
      return walkInto(path, kind, 'object', 'a result (an object with a Target)');
    }
    if (path.length === 3) {
      if (HEADER.has(member as string)) return 'emit';
      if (!ITEMS.has(member as string)) return 'skip';
      return walkInto(path, kind, 'array', 'a list');
    }
    return path.length === 4 ? 'emit' : 'skip';
  };
  const prune = (path: readonly PathPart[]) => {
    const last = path[path.length - 1];
    return typeof last === 'string' && (PRUNED.has(last) || (last === 'Code' && path[path.length - 2] === 'CauseMetadata'));
  };
  const map = function* (value: unknown, path: PathPart[]) {
    const member = path[2];
    const finding =
      member === 'Vulnerabilities'
        ? vulnerability(value, path, target, { status: 'open' })
        : member === 'Misconfigurations'
          ? misconfiguration(value, path, target)
          : modified(value, path, target);
    if (finding) {
      summary.findings += 1;
      yield finding;
    } else summary.skipped += 1;
  };

  for await (const { path, value } of streamJson(chunks, { plan, prune })) {
    if (path[0] === 'SchemaVersion') {
      sawSchema = true;
      if (value !== 2) throw fileError(path, 'expected 2: this reads Trivy’s JSON schema version 2');
      continue;
    }
    if (path[0] === 'ArtifactName') {
      summary.scope = typeof value === 'string' ? nameText(value) : undefined;
      continue;
    }
    const index = path[1] as number;
    if (index !== current) {
      yield* flush();
      current = index;
      target = {};
    }
    const member = path[2] as string;
    if (HEADER.has(member)) {
      if (typeof value !== 'string') throw fileError(path, 'expected text (a JSON string)');
      if (member === 'Target') target.target = value;
      else if (member === 'Class') target.class = value;
      else target.type = value;
    } else if (target.target === undefined) held.hold({ value, path }, path);
    else {
      yield* flush();
      yield* map(value, path);
    }
  }
  yield* flush();
  // a clean scan may have no Results at all; the schema version is always written
  if (!sawSchema) throw file.missing('SchemaVersion');
  return summary;

  // Findings read before their result's Target: mapped once it is known, or at the result's end.
  function* flush() {
    for (const h of held.take()) yield* map(h.value, h.path);
  }
};
