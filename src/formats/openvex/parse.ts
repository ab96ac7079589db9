// OpenVEX (v0.0.1 to v0.2.x) statements → scanned findings with evidence `statement`: what an
// author says about a vulnerability in a product (not affected, fixed, affected, under
// investigation). Mapping: docs/scanner-formats.md ("OpenVEX").
import type { ScannedFinding, ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { advisoryKey, advisoryOf, cveOf, purlIdentity, type PackageIdentity } from '../scanners/finding-key.ts';
import { purlResource, scannedFinding, type RawVerdict } from '../scanners/finding.ts';
import { fileError, streamJson, walkInto, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import type { FormatReader } from '../scanners/contract.ts';
import { fieldsOf, isObject, type Fields } from '../scanners/read.ts';

const TOOL = 'OpenVEX';
const STATUSES = ['not_affected', 'affected', 'fixed', 'under_investigation'];

interface Product {
  id: string;
  purl?: string;
}

/** A product or subcomponent: a string (v0.0.1) or an object with `@id` and identifiers. */
function productOf(value: unknown, path: PathPart[]): Product {
  if (typeof value === 'string' && value.trim()) return { id: value.trim() };
  const f = fieldsOf(value, path, 'a product (an object with an @id, or its @id as text)');
  const purl = f.object('identifiers')?.string('purl');
  const id = f.string('@id') ?? purl;
  if (!id) throw fileError([...path, '@id'], 'expected the product’s @id or identifiers.purl');
  return { id, purl };
}

const identityOf = (p: Product): PackageIdentity => purlIdentity(p.purl ?? p.id) ?? { identity: `vex:${p.id}`, name: p.id };

function verdictOf(s: Fields, status: string): RawVerdict {
  if (status === 'not_affected')
    return {
      status: 'ignored',
      justification: [s.string('justification'), s.string('impact_statement'), s.string('status_notes')].filter(Boolean).join(': '),
    };
  if (status === 'fixed') return { status: 'closed', justification: s.string('status_notes') };
  return { status: 'open' };
}

function mapStatement(value: unknown, path: PathPart[]): ScannedFinding[] {
  const s = fieldsOf(value, path, 'a statement (an object)');
  const raw = s.raw.vulnerability;
  const vuln = typeof raw === 'string' ? undefined : s.object('vulnerability');
  const name = typeof raw === 'string' ? raw : vuln?.string('name');
  if (!name) throw fileError([...path, 'vulnerability'], 'expected the vulnerability’s name (for example a CVE ID)');
  const ids = [name, ...(vuln?.strings('aliases') ?? [])];
  const advisory = advisoryOf(ids) ?? name;
  const status = s.string('status');
  if (!status || !STATUSES.includes(status))
    throw fileError([...path, 'status'], `expected ${STATUSES.slice(0, -1).join(', ')} or ${STATUSES.at(-1)}`);
  const products = s.array('products').map((p, i) => {
    const at = [...path, 'products', i];
    const subcomponents = isObject(p) ? fieldsOf(p, at).array('subcomponents') : [];
    const own = subcomponents.map((c, j) => ({ pkg: productOf(c, [...at, 'subcomponents', j]), at: [...at, 'subcomponents', j] }));
    return { product: productOf(p, at), own, at };
  });
  if (!products.length) throw fileError([...path, 'products'], 'expected at least one product');
  // v0.0.1 put subcomponents on the statement; later versions put them on each product.
  const shared = s
    .array('subcomponents')
    .map((c, i) => ({ pkg: productOf(c, [...path, 'subcomponents', i]), at: [...path, 'subcomponents', i] }));
  const verdict = verdictOf(s, status);
  const findings: ScannedFinding[] = [];
  for (const { product, own, at } of products) {
    // The statement is about the subcomponent (the package) inside the product when it names one.
    const packages = own.length ? own : shared.length ? shared : [{ pkg: product, at }];
    for (const { pkg, at: where } of packages) {
      const identity = identityOf(pkg);
      findings.push(
        scannedFinding({
          key: advisoryKey(advisory, identity),
          source: 'import',
          tool: TOOL,
          titles: [`${advisory} in ${identity.name}`],
          severity: 'medium',
          description: vuln?.string('description'),
          remediation: s.string('action_statement'),
          fixAvailable: false,
          cveId: cveOf(ids),
          resources: [purlResource(pkg.purl ?? pkg.id), ...(pkg === product ? [] : [{ name: product.id, type: 'product' }])],
          verdict,
          defaultJustification: 'Marked not_affected in an OpenVEX statement.',
          evidence: 'statement',
          path: where,
        }),
      );
    }
  }
  return findings;
}

/** Reads an OpenVEX document; yields one finding per statement, product and subcomponent. */
export const parseOpenVex: FormatReader = async function* (chunks, file, watch) {
  const summary: ScanSummary = { format: 'openvex', tool: TOOL, findings: 0, skipped: 0 };
  watch?.(summary);
  let context: unknown;
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    const [top] = path;
    const start = file.plan(path, kind);
    if (start) return start;
    if (path.length === 1) {
      if (top === '@context' || top === 'author') return 'emit';
      if (top !== 'statements') return 'skip';
      return walkInto(path, kind, 'array', 'the statements (a list)');
    }
    return path.length === 2 && top === 'statements' ? 'emit' : 'skip';
  };
  for await (const { path, value } of streamJson(chunks, { plan })) {
    const [top] = path;
    if (top === '@context') {
      context = value;
      if (typeof value !== 'string' || !value.startsWith('https://openvex.dev/ns'))
        throw fileError(path, 'expected the OpenVEX context (https://openvex.dev/ns…)');
    } else if (top === 'author') continue;
    else
      for (const finding of mapStatement(value, path)) {
        summary.findings += 1;
        yield finding;
      }
  }
  if (context === undefined) throw file.missing('@context');
  return summary;
};
