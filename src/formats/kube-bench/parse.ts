// kube-bench's JSON → check results: every result of every group of every control is a CIS
// recommendation checked on the node kube-bench ran on, `kube-bench:<test_number>`. PASS → pass,
// FAIL → fail; WARN (a recommendation kube-bench cannot decide, or a manual one) and INFO are no
// result. kube-bench does not name its node: the resource is the node type (`master`, `node`,
// `etcd`, …), named `<scope>/<node type>` by the import, and a cluster's nodes are imported each
// with its own scope (the node). Mapping:
// docs/check-results.md ("kube-bench").
import type { CheckParser, CheckReportSummary, CheckResult, CheckVerdict } from '../../domain/tests/check-result.ts';
import { fileError, streamJson, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import { fieldsOf, type Fields } from '../scanners/read.ts';
import { checkId, checkResult } from '../checks/read.ts';

const VERDICTS: Record<string, CheckVerdict | undefined> = { PASS: 'pass', FAIL: 'fail', WARN: undefined, INFO: undefined };

function* resultsOf(control: Fields, path: PathPart[]): Generator<CheckResult> {
  const nodeType = control.string('node_type') ?? 'node';
  const benchmark = control.string('version');
  if (!control.raw.tests) throw fileError([...path, 'tests'], 'expected the control’s groups of tests');
  for (const [g, group] of control.objects('tests').entries()) {
    for (const [i, r] of group.objects('results').entries()) {
      const at = [...path, 'tests', g, 'results', i];
      const status = r.string('status')?.toUpperCase();
      if (!status || !(status in VERDICTS)) throw fileError([...at, 'status'], 'expected the status: PASS, FAIL, WARN or INFO');
      const verdict = VERDICTS[status];
      if (!verdict) continue;
      const check = checkId('kube-bench', r.string('test_number'), [...at, 'test_number'], 'the recommendation’s number (test_number)');
      const actual = r.string('actual_value');
      yield checkResult({
        check,
        verdict,
        resourceId: nodeType,
        name: `${nodeType} (kube-bench${benchmark ? `, ${benchmark}` : ''})`,
        service: 'kubernetes',
        message: [r.string('test_desc'), actual && `actual: ${actual}`].filter(Boolean).join('; '),
        withinScope: true,
      });
    }
  }
}

/** Reads kube-bench's JSON: `{"Controls": [...]}`, or one control alone (older releases). */
export const parseKubeBench: CheckParser = async function* (chunks) {
  const summary: CheckReportSummary = { format: 'kube-bench', results: 0 };
  let controls = false;
  const alone: Record<string, unknown> = {};
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    if (path.length === 0) {
      if (kind !== 'object')
        throw fileError([], `expected a kube-bench JSON report (a JSON object), found ${kind === 'array' ? 'a list' : kind}`);
      return 'walk';
    }
    if (path.length === 1 && path[0] === 'Controls') {
      if (kind !== 'array') throw fileError(path, 'expected a list of controls');
      controls = true;
      return 'walk';
    }
    return path.length === 1 && path[0] === 'Totals' ? 'skip' : 'emit';
  };
  for await (const { path, value } of streamJson(chunks, { plan })) {
    if (path[0] !== 'Controls') {
      alone[path[0] as string] = value;
      continue;
    }
    for (const result of resultsOf(fieldsOf(value, path, 'a control (an object)'), path)) {
      summary.results += 1;
      yield result;
    }
  }
  if (!controls) {
    if (alone.tests === undefined) throw fileError(['Controls'], 'expected a kube-bench JSON report, which has “Controls”');
    for (const result of resultsOf(fieldsOf(alone, []), [])) {
      summary.results += 1;
      yield result;
    }
  }
  return summary;
};
