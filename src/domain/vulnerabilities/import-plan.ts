// The rules of a scanner import, as pure functions (docs/decisions/program-writes.md, "Scanner
// imports"): the stored key of a finding in a scope, the merge of one key reported twice, the
// digest that recognises an unchanged finding, and the status a reported finding gets.
import { createHash } from 'node:crypto';
import type { ImportedResource, ImportedRow } from '../../storage/db/repositories/vulnerabilities/vulnerability-imports.ts';
import { MAX_RESOURCES, type ScannedFinding } from './scanned-finding.ts';

const HASH_CHARS = 16;
const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, HASH_CHARS);

/**
 * The key a finding is stored under in `scope`: the parser's key (`<advisory or rule>~<package>~<hash>`)
 * with its hash taken again over the scope and the whole parser key, so the same CVE in two scopes is
 * two findings, and two findings of one scope keep two keys. Without a scope (`''`) the parser's key
 * is kept as is. Same length, same readable parts.
 */
export function scopedKey(key: string, scope: string): string {
  if (scope === '') return key;
  const tilde = key.lastIndexOf('~');
  const readable = tilde > 0 ? key.slice(0, tilde) : 'finding';
  return `${readable}~${hash(['scope', scope, key])}`;
}

/** The affected resource a scope becomes. */
export const scopeResource = (scope: string): ImportedResource => ({ name: scope, type: 'scope', tags: [] });

const resourceId = (r: ImportedResource) => `${r.type}\u0000${r.name}`;

/** Resources without repeats (by type and name), at most the API's 100. */
export function uniqueResources(resources: readonly ImportedResource[]): ImportedResource[] {
  const seen = new Set<string>();
  const out: ImportedResource[] = [];
  for (const r of resources) {
    if (seen.has(resourceId(r))) continue;
    seen.add(resourceId(r));
    out.push(r);
    if (out.length >= MAX_RESOURCES) break;
  }
  return out;
}

/**
 * One finding of two that a file reports under one key: the union of their resources; the fields of
 * the first detection (a VEX statement says nothing of severity or title); the verdict of the last
 * statement, else of the first detection.
 */
export function mergeFindings(a: ScannedFinding, b: ScannedFinding): ScannedFinding {
  const fieldsOf = a.evidence === 'scan' || b.evidence === 'statement' ? a : b;
  const verdict = b.evidence === 'statement' ? b.verdict : a.evidence === 'statement' ? a.verdict : fieldsOf.verdict;
  return {
    ...fieldsOf,
    verdict,
    evidence: a.evidence === 'scan' || b.evidence === 'scan' ? 'scan' : 'statement',
    affectedResources: uniqueResources([...a.affectedResources, ...b.affectedResources]).map((r) => ({ ...r, tags: [...r.tags] })),
  };
}

/** What an import reads for a finding, in the stored form. */
export interface ScannedState {
  title: string;
  severity: string;
  description: string | null;
  remediation: string | null;
  cvssScore: number | null;
  fixAvailable: string;
  cveId: string;
  resources: ImportedResource[];
  /** the tool's verdict */
  verdict: 'open' | 'ignored' | 'closed';
  justification: string | null;
}

export function scannedState(finding: ScannedFinding, scope: string): ScannedState {
  const resources = uniqueResources([...(scope ? [scopeResource(scope)] : []), ...finding.affectedResources]);
  return {
    title: finding.title,
    severity: finding.severity,
    description: finding.description ?? null,
    remediation: finding.remediation ?? null,
    cvssScore: finding.cvssScore ?? null,
    fixAvailable: finding.fixAvailable,
    cveId: finding.cveId,
    resources,
    verdict: finding.verdict.status,
    justification: 'justification' in finding.verdict ? (finding.verdict.justification ?? null) : null,
  };
}

/**
 * `<fields>.<resources>`: a hash of the fields and verdict, and one of the resources (in any
 * order), so an unchanged finding is recognised from its row alone, and resources are rewritten
 * only when they changed.
 */
export function digestOf(s: ScannedState): string {
  const fields = hash([
    s.title,
    s.severity,
    s.description,
    s.remediation,
    s.cvssScore,
    s.fixAvailable,
    s.cveId,
    s.verdict,
    s.justification,
  ]);
  const resources = hash(s.resources.map((r) => JSON.stringify([r.type, r.name, r.tags])).sort());
  return `${fields}.${resources}`;
}

export const resourcesPart = (digest: string | null) => (digest ?? '').split('.')[1] ?? '';

/** Statuses a person sets that a scan reporting the finding again keeps. */
const KEPT = new Set(['acknowledged', 'ignored', 'risk']);

/**
 * The status of a finding the file reports: the tool's `closed` (VEX fixed) closes it; a status a
 * person set (acknowledged, ignored or risk, different from what the last import set) is kept;
 * otherwise the tool's verdict (`open`, or `ignored` for a suppression or VEX not_affected).
 */
export function statusOf(row: Pick<ImportedRow, 'status' | 'importStatus'> | undefined, verdict: ScannedState['verdict']): string {
  if (verdict === 'closed') return 'closed';
  if (row && KEPT.has(row.status) && row.status !== row.importStatus) return row.status;
  return verdict;
}
