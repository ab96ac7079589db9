// A policy report → check results: each result is a policy's rule on the resources it names (or,
// without any, the report's scope), `<source>:<policy>/<rule>` (the result's `source`, else
// kyverno). pass → pass; fail, warn and error → fail (a warning is a failure an audit policy lets
// through; an error is a rule that could not be evaluated); skip is no result. Mapping:
// docs/check-results.md ("Kyverno and other policy reports").
import type { CheckParser, CheckReportSummary, CheckResult, CheckVerdict } from '../../domain/tests/check-result.ts';
import { fileError, streamJson, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import { fieldsOf, type Fields } from '../scanners/read.ts';
import { checkId, checkResult, timeOf } from '../checks/read.ts';

const LABEL = 'a Kubernetes policy report (PolicyReport, ClusterPolicyReport, Report, ClusterReport or a List of them)';
const KINDS = new Set(['PolicyReport', 'ClusterPolicyReport', 'Report', 'ClusterReport']);
const VERDICTS: Record<string, CheckVerdict | undefined> = { pass: 'pass', fail: 'fail', warn: 'fail', error: 'fail', skip: undefined };

/** `namespace/Kind/name`, or `Kind/name` for a cluster-scoped resource. */
function resourceOf(ref: Fields, path: readonly PathPart[]): { id: string; name: string; kind?: string } {
  const name = ref.string('name');
  if (!name) throw fileError([...path, 'name'], 'expected the resource’s name');
  const kind = ref.string('kind');
  const namespace = ref.string('namespace');
  return { id: [namespace, kind, name].filter(Boolean).join('/'), name, kind };
}

/** The tool's part of a check name, from the result's `source` (`Kyverno` → `kyverno`). */
const toolOf = (source: string | undefined) =>
  (source ?? 'kyverno')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'kyverno';

function* resultsOf(report: Fields, path: PathPart[]): Generator<CheckResult> {
  const kind = report.string('kind');
  if (!kind || !KINDS.has(kind))
    throw fileError([...path, 'kind'], `expected ${LABEL.replace(/^a /, 'the kind of a ')}${kind ? `, found “${kind}”` : ''}`);
  const scope = report.object('scope');
  for (const [i, r] of report.objects('results').entries()) {
    const at = [...path, 'results', i];
    const result = r.string('result');
    if (!result || !(result in VERDICTS)) throw fileError([...at, 'result'], 'expected the result: pass, fail, warn, error or skip');
    const verdict = VERDICTS[result];
    if (!verdict) continue;
    const policy = r.string('policy');
    const rule = r.string('rule');
    const check = checkId(
      toolOf(r.string('source')),
      policy && (rule ? `${policy}/${rule}` : policy),
      [...at, 'policy'],
      'the policy’s name',
    );
    const timestamp = r.object('timestamp');
    const time = timestamp ? timeOf(timestamp.number('seconds')) : undefined;
    const refs = r.objects('resources');
    const targets =
      refs.length > 0
        ? refs.map((ref, j) => resourceOf(ref, [...at, 'resources', j]))
        : scope
          ? [resourceOf(scope, [...path, 'scope'])]
          : [];
    if (targets.length === 0)
      throw fileError([...at, 'resources'], 'expected the resources the rule was applied to (or the report’s scope)');
    for (const t of targets)
      yield checkResult({ check, verdict, resourceId: t.id, name: t.name, service: t.kind, message: r.string('message'), time });
  }
}

/** Reads a policy report, or a List of them; yields their results. */
export const parsePolicyReport: CheckParser = async function* (chunks) {
  const summary: CheckReportSummary = { format: 'policyreport', results: 0 };
  let list = false;
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    if (path.length === 0) {
      if (kind !== 'object') throw fileError([], `expected ${LABEL} (a JSON object), found ${kind === 'array' ? 'a list' : kind}`);
      return 'walk';
    }
    if (path.length === 1) {
      if (path[0] === 'items') {
        if (kind !== 'array') throw fileError(['items'], 'expected a list of policy reports');
        list = true;
        return 'walk';
      }
      return 'emit';
    }
    return 'emit';
  };
  const top: Record<string, unknown> = {};
  for await (const { path, value } of streamJson(chunks, { plan })) {
    if (path[0] === 'items') {
      for (const result of resultsOf(fieldsOf(value, path, 'a policy report (an object)'), path)) {
        summary.results += 1;
        yield result;
      }
    } else top[path[0] as string] = value;
  }
  if (!list) {
    // One report: its members were kept as they came (a report is one Kubernetes object).
    for (const result of resultsOf(fieldsOf(top, []), [])) {
      summary.results += 1;
      yield result;
    }
  } else if (top.kind !== undefined && top.kind !== 'List' && !String(top.kind).endsWith('List'))
    throw fileError(['kind'], `expected a List of policy reports, found “${String(top.kind)}”`);
  return summary;
};
