// Prowler's OCSF JSON → check results. Each finding of the list is one check on one account (or
// project, subscription) and names its resources: one result per resource. The check is
// `metadata.event_code` (Prowler 4+; `metadata.product.feature.uid` in Prowler 3), the verdict
// `status_code` (PASS, FAIL; MANUAL is no verdict and is skipped; `status` Suppressed marks a muted
// failure), the time `time_dt` or `time`. Mapping: docs/check-results.md ("Prowler").
import type { CheckReportSummary, CheckVerdict } from '../../domain/tests/check-result.ts';
import type { CheckParser } from '../../domain/tests/check-result.ts';
import { nameText } from '../../domain/vulnerabilities/scanned-text.ts';
import { fileError, streamJson, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import { fieldsOf, type Fields } from '../scanners/read.ts';
import { checkId, checkResult, timeOf } from '../checks/read.ts';

const TOOL = 'prowler';
const LABEL = 'a Prowler OCSF JSON report (a list of findings)';

/** The verdict of a finding, or undefined for one that is no verdict (MANUAL, INFO). */
function verdictOf(finding: Fields): CheckVerdict | undefined | 'unknown' {
  const code = (finding.string('status_code') ?? finding.object('compliance')?.string('status'))?.toUpperCase();
  const muted = finding.string('status')?.toLowerCase() === 'suppressed' || finding.raw.muted === true;
  if (code === 'PASS' || code === 'SUCCESS') return 'pass';
  if (code === 'FAIL' || code === 'FAILURE') return muted ? 'muted' : 'fail';
  if (code === 'MANUAL' || code === 'INFO' || code === 'WARNING' || code === 'OTHER' || code === 'UNKNOWN') return undefined;
  return 'unknown';
}

function checkOf(finding: Fields, path: readonly PathPart[]): string {
  const metadata = finding.object('metadata');
  const id = metadata?.string('event_code') ?? metadata?.object('product')?.object('feature')?.string('uid');
  return checkId(TOOL, id, [...path, 'metadata', 'event_code'], 'the check’s ID (metadata.event_code)');
}

function* resultsOf(value: unknown, path: PathPart[], summary: CheckReportSummary) {
  const finding = fieldsOf(value, path, 'a finding (an object)');
  const check = checkOf(finding, path);
  const verdict = verdictOf(finding);
  if (verdict === 'unknown') throw fileError([...path, 'status_code'], 'expected the check’s outcome: PASS, FAIL or MANUAL');
  if (verdict === undefined) return;
  const cloud = finding.object('cloud');
  const account = cloud?.object('account')?.string('uid');
  const provider = cloud?.string('provider');
  if (summary.scope === undefined && account) summary.scope = nameText(provider ? `${provider}:${account}` : account);
  const message = finding.string('status_detail') ?? finding.string('message');
  const time = timeOf(finding.raw.time_dt) ?? timeOf(finding.raw.time);
  const resources = finding.objects('resources');
  if (resources.length === 0) {
    const id = account ?? finding.object('finding_info')?.string('uid') ?? check;
    yield checkResult({ check, verdict, resourceId: id, region: cloud?.string('region'), accountID: account, message, time });
    return;
  }
  for (const [i, r] of resources.entries()) {
    const uid = r.string('uid') ?? r.string('name');
    if (!uid) throw fileError([...path, 'resources', i, 'uid'], 'expected the resource’s uid or name');
    yield checkResult({
      check,
      verdict,
      resourceId: uid,
      name: r.string('name'),
      region: r.string('region') ?? cloud?.string('region'),
      service: r.object('group')?.string('name'),
      accountID: account,
      message,
      time,
    });
  }
}

/** Reads Prowler's OCSF JSON; yields its results, returns what the file says of itself. */
export const parseOcsf: CheckParser = async function* (chunks) {
  const summary: CheckReportSummary = { format: 'ocsf', results: 0 };
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    if (path.length === 0) {
      if (kind !== 'array') throw fileError([], `expected ${LABEL}, found ${kind === 'object' ? 'an object' : kind}`);
      return 'walk';
    }
    return 'emit';
  };
  for await (const { path, value } of streamJson(chunks, { plan })) {
    for (const result of resultsOf(value, path, summary)) {
      summary.results += 1;
      yield result;
    }
  }
  return summary;
};
