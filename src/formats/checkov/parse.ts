// Checkov's JSON → check results: `results.passed_checks` pass, `results.failed_checks` fail,
// `results.skipped_checks` (a suppression in the code or on the command line) are muted failures.
// The check is `checkov:<check_id>`, the resource `<file_path>:<resource>`. A report of a
// framework that found nothing to check (`{"passed": 0, "failed": 0, …}`) has no results. Mapping:
// docs/check-results.md ("Checkov").
import type { CheckParser, CheckReportSummary, CheckVerdict } from '../../domain/tests/check-result.ts';
import { fileError, streamJson, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import { fieldsOf } from '../scanners/read.ts';
import { checkId, checkResult } from '../checks/read.ts';

/** Top-level members of a Checkov report: a report has one of them. */
const MEMBERS = new Set(['check_type', 'results', 'summary', 'passed', 'failed', 'checkov_version']);
const LISTS: Record<string, CheckVerdict> = { passed_checks: 'pass', failed_checks: 'fail', skipped_checks: 'muted' };

function resultOf(value: unknown, path: PathPart[], verdict: CheckVerdict, framework: string | undefined) {
  const c = fieldsOf(value, path, 'a check (an object)');
  const check = checkId('checkov', c.string('check_id'), [...path, 'check_id'], 'the check’s ID (check_id)');
  const resource = c.string('resource');
  if (!resource) throw fileError([...path, 'resource'], 'expected the resource the check ran on');
  const file = c.string('repo_file_path') ?? c.string('file_path');
  const lines = c.array('file_line_range');
  const where = file && lines.length === 2 ? `${file}:${lines[0]}-${lines[1]}` : file;
  const name = c.string('check_name');
  return checkResult({
    check,
    verdict,
    resourceId: file ? `${file}:${resource}` : resource,
    name: resource,
    service: framework,
    message: [name, where && `(${where})`].filter(Boolean).join(' '),
  });
}

/** Reads Checkov's JSON: one framework's report, or a list of them. */
export const parseCheckov: CheckParser = async function* (chunks) {
  const summary: CheckReportSummary = { format: 'checkov', results: 0 };
  let root: 'object' | 'array' | undefined;
  const framework = new Map<string, string>();
  // The reports read, and those that had a member only Checkov writes (a file of another tool has none).
  const reports: PathPart[][] = [];
  const known = new Set<string>();
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    if (path.length === 0) {
      if (kind !== 'object' && kind !== 'array')
        throw fileError([], `expected a Checkov JSON report (a JSON object or a list of them), found ${kind}`);
      root = kind;
      if (kind === 'object') reports.push([]);
      return 'walk';
    }
    const at = root === 'array' ? path.slice(1) : path;
    if (root === 'array' && path.length === 1) {
      if (kind !== 'object') throw fileError(path, 'expected a Checkov report (an object)');
      reports.push([...path]);
      return 'walk';
    }
    if (at.length === 1 && MEMBERS.has(at[0] as string)) known.add(root === 'array' ? String(path[0]) : '');
    if (at.length === 1) {
      if (at[0] === 'check_type') return 'emit';
      if (at[0] !== 'results') return 'skip';
      if (kind !== 'object') throw fileError(path, 'expected the results (an object with passed_checks and failed_checks)');
      return 'walk';
    }
    if (at.length === 2) {
      if (!((at[1] as string) in LISTS)) return 'skip';
      if (kind !== 'array') throw fileError(path, 'expected a list of checks');
      return 'walk';
    }
    return 'emit';
  };
  for await (const { path, value } of streamJson(chunks, { plan })) {
    const report = root === 'array' ? String(path[0]) : '';
    const at = root === 'array' ? path.slice(1) : path;
    if (at[0] === 'check_type') {
      if (typeof value === 'string') framework.set(report, value);
      continue;
    }
    summary.results += 1;
    yield resultOf(value, path, LISTS[at[1] as string] as CheckVerdict, framework.get(report));
  }
  const unknown = reports.find((r) => !known.has(r.length === 0 ? '' : String(r[0])));
  if (unknown)
    throw fileError(
      [...unknown, 'results'],
      'expected a Checkov JSON report, which has “results” (or, when nothing was checked, “passed” and “failed”)',
    );
  return summary;
};
