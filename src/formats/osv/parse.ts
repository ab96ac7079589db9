// OSV-Scanner JSON (`osv-scanner --format json`) → scanned findings: one finding per group of
// aliases (OSV-Scanner's `groups`: a GHSA and its CVE are one problem) in each vulnerable package.
// Mapping: docs/scanner-formats.md ("OSV-Scanner JSON").
import type { ScannedFinding, ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { advisoryKey, advisoryOf, cveOf, packageIdentity, type PackageIdentity } from '../scanners/finding-key.ts';
import { packageResource, scannedFinding, type RawResource } from '../scanners/finding.ts';
import { warn } from '../scanners/warnings.ts';
import { Held, MAX_HELD } from '../scanners/held.ts';
import { fileError, streamJson, walkInto, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import type { FormatReader } from '../scanners/contract.ts';
import { fieldsOf, type Fields } from '../scanners/read.ts';
import { chooseSeverity, cvssScoreOf } from '../scanners/severity.ts';

const TOOL = 'OSV-Scanner';
// An OSV entry lists every affected version (thousands for an old package): not needed here.
const PRUNED = new Set(['versions', 'references', 'credits', 'ecosystem_specific', 'licenses']);

/** Fixed versions the entry gives for this package (OSV `affected[].ranges[].events[].fixed`): every one for a package without a name. */
function fixedVersions(entry: Fields, name: string | undefined, ecosystem: string | undefined): string[] {
  const out: string[] = [];
  for (const affected of entry.objects('affected')) {
    const pkg = affected.object('package');
    const other = pkg && (pkg.string('name') !== name || (ecosystem && pkg.string('ecosystem') && pkg.string('ecosystem') !== ecosystem));
    if (name !== undefined && other) continue;
    for (const range of affected.objects('ranges'))
      for (const event of range.objects('events')) {
        const fixed = event.string('fixed');
        if (fixed && !out.includes(fixed)) out.push(fixed);
      }
  }
  return out;
}

const UNNAMED =
  'a package without a name (found by its commit, or from a git source): its findings name the commit and the scanned source instead';

/** What names a package: its name, else its commit, else the source it was found in (then a warning says so). */
interface Named {
  name: string | undefined;
  version: string | undefined;
  ecosystem: string | undefined;
  /** as a title names it */
  label: string;
  identity: PackageIdentity;
  resource: RawResource;
}

function packageOf(entry: Fields, sourcePath: string | undefined): Named {
  const pkg = entry.object('package');
  const name = pkg?.string('name');
  const version = pkg?.string('version');
  const ecosystem = pkg?.string('ecosystem');
  if (name) {
    const identity = packageIdentity({ name, ecosystem, purl: pkg?.string('purl') });
    return { name, version, ecosystem, label: name, identity, resource: packageResource(name, version, ecosystem) };
  }
  const commit = pkg?.string('commit');
  if (commit) {
    const short = commit.slice(0, 12);
    const identity = { identity: `commit:${commit.toLowerCase()}`, name: short };
    return { name, version, ecosystem, label: `commit ${short}`, identity, resource: { name: commit, type: 'commit' } };
  }
  const where = sourcePath ?? 'the scanned source';
  return {
    name,
    version,
    ecosystem,
    label: where,
    identity: { identity: `source:${where}`, name: 'unnamed' },
    resource: { name: undefined, type: 'package' },
  };
}

function mapPackage(value: unknown, path: PathPart[], sourcePath: string | undefined, summary: ScanSummary): ScannedFinding[] {
  const entry = fieldsOf(value, path, 'a package entry (an object)');
  const { name, version, ecosystem, label, identity, resource } = packageOf(entry, sourcePath);
  const vulns = entry.objects('vulnerabilities');
  const byId = new Map(vulns.map((v) => [v.string('id'), v] as const));
  const groups = entry.objects('groups');
  // Without groups, each entry is its own group.
  const sets = groups.length
    ? groups.map((g) => ({ ids: g.strings('ids'), score: cvssScoreOf(g.raw.max_severity), at: g.path }))
    : vulns.map((v) => ({ ids: [v.string('id') ?? ''], score: undefined, at: v.path }));
  if (!name && sets.length > 0) warn(summary, [...path, 'package', 'name'], UNNAMED);
  return sets.map(({ ids, score, at }) => {
    const entries = ids.map((id) => byId.get(id)).filter((v): v is Fields => v !== undefined);
    const allIds = [...ids, ...entries.flatMap((v) => v.strings('aliases'))];
    const advisory = advisoryOf(allIds);
    if (!advisory) throw fileError(at, 'expected the vulnerability’s ID');
    const word = entries.map((v) => v.object('database_specific')?.string('severity')).find(Boolean);
    const fixed = [...new Set(entries.flatMap((v) => fixedVersions(v, name, ecosystem)))];
    const said = entries.map((v) => v.string('summary')).find(Boolean);
    return scannedFinding({
      key: advisoryKey(advisory, identity),
      source: 'import',
      tool: TOOL,
      titles: [`${advisory} in ${label}${said ? `: ${said}` : ''}`],
      severity: chooseSeverity(word, score),
      description: entries.map((v) => v.string('details')).find(Boolean) ?? said,
      remediation: !fixed.length
        ? undefined
        : name
          ? `Upgrade ${name}${version ? ` from ${version}` : ''} to ${fixed.join(' or ')}.`
          : `Update to a revision that includes the fix: ${fixed.join(' or ')}.`,
      cvssScore: score,
      fixAvailable: fixed.length > 0,
      cveId: cveOf(allIds),
      resources: [resource, { name: sourcePath, type: 'file' }],
      verdict: { status: 'open' },
      defaultJustification: '',
      path: at,
    });
  });
}

/** Reads an OSV-Scanner JSON report; yields its findings, returns what the file says of itself. */
export const parseOsv: FormatReader = async function* (chunks, file, watch) {
  const summary: ScanSummary = { format: 'osv', tool: TOOL, findings: 0, skipped: 0 };
  watch?.(summary);
  let sawResults = false;
  let current = -1;
  let sourcePath: string | undefined;
  let sawSource = false;
  const held = new Held<{ value: unknown; path: PathPart[] }>(
    MAX_HELD,
    `expected results[].source before the result’s packages: more than ${MAX_HELD} packages come first`,
  );
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    const [top, , member] = path;
    const start = file.plan(path, kind);
    if (start) return start;
    if (path.length === 1) {
      if (top !== 'results') return 'skip';
      sawResults = true;
      return walkInto(path, kind, 'array', 'the results (a list)');
    }
    if (top !== 'results') return 'skip';
    if (path.length === 2) {
      return walkInto(path, kind, 'object', 'a result (an object with a source and packages)');
    }
    if (path.length === 3) {
      if (member === 'source') return 'emit';
      if (member !== 'packages') return 'skip';
      return walkInto(path, kind, 'array', 'the packages (a list)');
    }
    return path.length === 4 ? 'emit' : 'skip';
  };
  const prune = (path: readonly PathPart[]) => {
    const last = path[path.length - 1];
    return typeof last === 'string' && PRUNED.has(last);
  };
  const map = function* (value: unknown, path: PathPart[]) {
    for (const finding of mapPackage(value, path, sourcePath, summary)) {
      summary.findings += 1;
      yield finding;
    }
  };
  for await (const { path, value } of streamJson(chunks, { plan, prune })) {
    const index = path[1] as number;
    if (index !== current) {
      for (const h of held.take()) yield* map(h.value, h.path);
      current = index;
      sourcePath = undefined;
      sawSource = false;
    }
    if (path[2] === 'source') {
      sourcePath = fieldsOf(value, path, 'the scanned source (an object with a path)').string('path');
      sawSource = true;
      for (const h of held.take()) yield* map(h.value, h.path);
    } else if (!sawSource) held.hold({ value, path }, path);
    else yield* map(value, path);
  }
  for (const h of held.take()) yield* map(h.value, h.path);
  if (!sawResults) throw file.missing('results');
  return summary;
};
