// Trivy JSON (`trivy … --format json`, SchemaVersion 2; `trivy k8s --format json`; the list of
// results Trivy wrote before 0.20) → scanned findings: vulnerabilities, suppressed vulnerabilities
// (`ModifiedFindings`, with --show-suppressed) and misconfigurations.
// Mapping: docs/scanner-formats.md ("Trivy JSON").
import type { ScannedFinding, ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { nameText } from '../../domain/vulnerabilities/scanned-text.ts';
import { advisoryKey, advisoryOf, cveOf, packageIdentity, ruleKey } from '../scanners/finding-key.ts';
import { packageResource, scannedFinding, type RawResource, type RawVerdict } from '../scanners/finding.ts';
import { Held, MAX_HELD } from '../scanners/held.ts';
import { fileError, streamJson, walkInto, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import type { FormatReader } from '../scanners/contract.ts';
import { fieldsOf, type Fields } from '../scanners/read.ts';
import { warn } from '../scanners/warnings.ts';
import { chooseSeverity, cvssScoreOf } from '../scanners/severity.ts';

const TOOL = 'Trivy';
// Trivy writes its modified findings as `ExperimentalModifiedFindings` (`ModifiedFindings` read too)
const ITEMS = new Set(['Vulnerabilities', 'Misconfigurations', 'ModifiedFindings', 'ExperimentalModifiedFindings']);
const HEADER = new Set(['Target', 'Class', 'Type']);
/** Top-level members read: a report's schema and artifact, a Kubernetes report's cluster. */
const TOP = new Set(['SchemaVersion', 'ArtifactName', 'ClusterName']);
/** A Kubernetes report's lists of resources: `Resources` (`--report all`), `Findings` (`--report summary`), and the older two. */
const RESOURCE_LISTS = new Set(['Resources', 'Findings', 'Vulnerabilities', 'Misconfigurations']);
const RESOURCE_HEADER = new Map<string, keyof Workload>([
  ['Namespace', 'namespace'],
  ['Kind', 'kind'],
  ['Name', 'name'],
]);
// Parts nobody maps, dropped while reading (a misconfiguration's code excerpt can be long).
const PRUNED = new Set(['Layer', 'DataSource', 'References', 'CweIDs', 'Code', 'Occurrences', 'Traces']);

interface Target {
  target?: string;
  class?: string;
  type?: string;
}

/** The Kubernetes resource whose results are read (a Kubernetes report). */
interface Workload {
  namespace?: string;
  kind?: string;
  name?: string;
}

/** What a finding is found on: its result's target and, in a Kubernetes report, the resource (`namespace/Kind/name`). */
interface On {
  target: Target;
  workload: string | undefined;
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

function vulnerability(value: unknown, path: PathPart[], on: On, verdict: RawVerdict): ScannedFinding {
  const { target, workload } = on;
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
  // in a cluster, the workload and its image name where the package is (an image report's image is its scope)
  if (workload) resources.push({ name: workload, type: 'kubernetes' });
  if (v.string('PkgPath')) resources.push({ name: v.string('PkgPath'), type: 'file' });
  else if (target.class !== 'os-pkgs') resources.push({ name: target.target, type: 'file' });
  else if (workload) resources.push({ name: target.target, type: 'container_image' });
  // Trivy's Status is the vendor's fix state; only `not_affected` says the package is not a problem.
  const vendorVerdict: RawVerdict =
    v.string('Status') === 'not_affected'
      ? { status: 'ignored', justification: 'The vendor states this package is not affected (Trivy status “not_affected”).' }
      : { status: 'open' };
  const title = v.string('Title');
  const pkg = packageIdentity({ purl, ecosystem: target.type, name });
  return scannedFinding({
    // in a cluster, the same package in two workloads is two findings: each is fixed by its own image
    key: advisoryKey(advisoryOf([id]) ?? id, workload ? { ...pkg, identity: `${workload}\u0000${pkg.identity}` } : pkg),
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

function misconfiguration(value: unknown, path: PathPart[], on: On): ScannedFinding | undefined {
  const { target, workload } = on;
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
    // (in a cluster, also the Kubernetes resource)
    key: ruleKey(TOOL, id, [target.target ?? '', resource ?? '', ...lines, m.string('Message') ?? '', ...(workload ? [workload] : [])]),
    source: 'import',
    tool: TOOL,
    titles: [`${id}: ${m.string('Title') ?? m.string('Message') ?? ''}`],
    severity: chooseSeverity(m.string('Severity'), undefined),
    description: [m.string('Message'), m.string('Description')].filter(Boolean).join('\n\n'),
    remediation: [m.string('Resolution'), primaryUrl && `See ${primaryUrl}`].filter(Boolean).join('\n\n'),
    fixAvailable: false,
    cveId: '',
    // in a cluster the target is the resource itself (`Deployment/web`), not a file
    resources: [
      workload ? { name: workload, type: 'kubernetes' } : { name: target.target, type: 'file' },
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

function modified(value: unknown, path: PathPart[], on: On): ScannedFinding | undefined {
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
  return vulnerability(finding, [...path, 'Finding'], on, verdict);
}

/** Where a path is in the file: the results list it is in (its path) and the Kubernetes resource, if any. */
interface Place {
  /** the path of the list of results (`[]` for a report of Trivy before 0.20, a list at the top) */
  results: readonly PathPart[];
  /** `Resources/3`: the Kubernetes resource whose results these are */
  resource?: string;
}

/**
 * Findings of kinds that are not vulnerabilities, left out and counted in a warning
 * (docs/scanner-formats.md, "Trivy JSON"): a license is a policy question with no CVE, fix version
 * or score, a secret is rotated rather than patched.
 */
const LEFT_OUT = new Map([
  ['Licenses', 'Trivy’s license findings (Results[].Licenses) are not vulnerabilities and are not imported: see them in Trivy'],
  ['Secrets', 'Trivy’s secret findings (Results[].Secrets) are not vulnerabilities and are not imported: see them in Trivy'],
]);

/** Called for each finding of a kind left out (LEFT_OUT), with its place. */
type LeftOut = (path: readonly PathPart[], why: string) => void;

/** The plan of a path inside a list of results, `base` being the length of the list's own path. */
function resultPlan(path: readonly PathPart[], kind: ValueKind, base: number, leftOut: LeftOut): Plan {
  if (path.length === base + 1) return walkInto(path, kind, 'object', 'a result (an object with a Target)');
  const member = path[base + 1] as string;
  if (path.length === base + 2) {
    if (HEADER.has(member)) return 'emit';
    // Trivy before 0.20 writes `null` for a result without findings
    if (kind === 'null' || !(ITEMS.has(member) || (LEFT_OUT.has(member) && kind === 'array'))) return 'skip';
    return walkInto(path, kind, 'array', 'a list');
  }
  if (path.length !== base + 3) return 'skip';
  const why = LEFT_OUT.get(member);
  if (why === undefined) return 'emit';
  leftOut(path, why);
  return 'skip';
}

/**
 * The three shapes, as a plan (docs/scanner-formats.md, "Trivy JSON"): a report (`Results`), a
 * Kubernetes report (`ClusterName` with `Resources`, `Findings`, or the older `Vulnerabilities` and
 * `Misconfigurations`, each a list of resources with their `Results`), and a list of results (Trivy
 * before 0.20).
 */
function trivyPlan(path: readonly PathPart[], kind: ValueKind, legacy: boolean, leftOut: LeftOut): Plan {
  if (legacy) return resultPlan(path, kind, 0, leftOut);
  const [top, , member] = path;
  if (path.length === 1) {
    if (TOP.has(top as string)) return 'emit';
    if (top === 'Results') return walkInto(path, kind, 'array', 'the results (a list)');
    if (!RESOURCE_LISTS.has(top as string)) return 'skip';
    return walkInto(path, kind, 'array', 'the Kubernetes resources (a list)');
  }
  if (top === 'Results') return resultPlan(path, kind, 1, leftOut);
  if (!RESOURCE_LISTS.has(top as string)) return 'skip';
  if (path.length === 2) return walkInto(path, kind, 'object', 'a Kubernetes resource (an object with Kind, Name and Results)');
  if (path.length === 3) {
    if (RESOURCE_HEADER.has(member as string)) return 'emit';
    if (member !== 'Results') return 'skip';
    return walkInto(path, kind, 'array', 'the resource’s results (a list)');
  }
  return member === 'Results' ? resultPlan(path, kind, 3, leftOut) : 'skip';
}

/** Where an emitted part is: the results list and the resource it belongs to. */
function placeOf(path: readonly PathPart[], legacy: boolean): Place {
  if (legacy) return { results: [] };
  if (path[0] === 'Results') return { results: ['Results'] };
  return { results: path.slice(0, 3), resource: `${String(path[0])}/${String(path[1])}` };
}

/** The Kubernetes resource as its findings name it: `namespace/Kind/name` (`Kind/name` for a cluster-wide one). */
const workloadName = (w: Workload) => [w.namespace, w.kind, w.name].filter(Boolean).join('/');

/** Reads a Trivy JSON report; yields its findings, returns what the file says of itself. */
export const parseTrivy: FormatReader = async function* (chunks, file, watch) {
  const summary: ScanSummary = { format: 'trivy', tool: TOOL, findings: 0, skipped: 0 };
  watch?.(summary);
  let shape: 'report' | 'kubernetes' | 'list' | undefined;
  let currentResult = '';
  let currentResource: string | undefined;
  let target: Target = {};
  let workload: Workload | undefined;
  const held = new Held<{ value: unknown; path: PathPart[] }>(
    MAX_HELD,
    `expected Results[].Target before the result’s findings: more than ${MAX_HELD} findings come first`,
  );
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    if (path.length === 0 && kind === 'array') {
      shape = 'list';
      return 'walk';
    }
    return file.plan(path, kind) ?? trivyPlan(path, kind, shape === 'list', (at, why) => warn(summary, at, why));
  };
  const prune = (path: readonly PathPart[]) => {
    const last = path[path.length - 1];
    return typeof last === 'string' && (PRUNED.has(last) || (last === 'Code' && path[path.length - 2] === 'CauseMetadata'));
  };
  const map = function* (value: unknown, path: PathPart[]) {
    const member = path[path.length - 2];
    const on: On = { target, workload: workload?.name === undefined ? undefined : workloadName(workload) };
    const finding =
      member === 'Vulnerabilities'
        ? vulnerability(value, path, on, { status: 'open' })
        : member === 'Misconfigurations'
          ? misconfiguration(value, path, on)
          : modified(value, path, on);
    if (finding) {
      summary.findings += 1;
      yield finding;
    } else summary.skipped += 1;
  };
  // Findings read before their result's Target (or their resource's Name) are held until then.
  const ready = () => target.target !== undefined && (currentResource === undefined || workload?.name !== undefined);

  for await (const { path, value } of streamJson(chunks, { plan, prune })) {
    if (path.length === 1) {
      top(path, value);
      continue;
    }
    const place = placeOf(path, shape === 'list');
    if (place.resource !== currentResource) {
      yield* flush();
      currentResource = place.resource;
      workload = place.resource === undefined ? undefined : {};
      currentResult = '';
    }
    if (place.resource !== undefined && path.length === 3) {
      if (typeof value !== 'string') throw fileError(path, 'expected text (a JSON string)');
      (workload as Workload)[RESOURCE_HEADER.get(path[2] as string) as keyof Workload] = value;
      if (ready()) yield* flush();
      continue;
    }
    const base = place.results.length;
    const result = String(path[base]);
    if (result !== currentResult) {
      yield* flush();
      currentResult = result;
      target = {};
    }
    const member = path[base + 1] as string;
    if (HEADER.has(member)) {
      if (typeof value !== 'string') throw fileError(path, 'expected text (a JSON string)');
      if (member === 'Target') target.target = value;
      else if (member === 'Class') target.class = value;
      else target.type = value;
      if (ready()) yield* flush();
    } else if (!ready()) held.hold({ value, path }, path);
    else yield* map(value, path);
  }
  yield* flush();
  // a clean scan may have no Results at all; the schema version is always written (a Kubernetes
  // report has none, its cluster's name instead; the list of Trivy before 0.20 has neither)
  if (shape === undefined) throw file.missing('SchemaVersion');
  return summary;

  function top(path: PathPart[], value: unknown) {
    const [name] = path;
    if (name === 'SchemaVersion') {
      shape ??= 'report';
      if (value !== 2) throw fileError(path, 'expected 2: this reads Trivy’s JSON schema version 2');
    } else if (name === 'ArtifactName' || name === 'ClusterName') {
      if (name === 'ClusterName') shape = 'kubernetes';
      summary.scope = typeof value === 'string' ? nameText(value) : undefined;
    }
  }

  // Findings held: mapped once what they wait for is known, or at the end of their result.
  function* flush() {
    for (const h of held.take()) yield* map(h.value, h.path);
  }
};
