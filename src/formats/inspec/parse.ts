// Chef InSpec's JSON → check results: every result of every control of every profile,
// `inspec:<control id>`. passed → pass; failed and error → fail; skipped is no result. A result's
// resource is the one it names (`resource_id`, InSpec 5 and later), else the platform InSpec ran on
// (`platform.target_id`, else its name); the target is the report's scope. Mapping:
// docs/check-results.md ("Chef InSpec").
import type { CheckParser, CheckReportSummary, CheckResult, CheckVerdict } from '../../domain/tests/check-result.ts';
import { nameText } from '../../domain/vulnerabilities/scanned-text.ts';
import { fileError, streamJson, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import { fieldsOf, isObject, type Fields } from '../scanners/read.ts';
import { checkId, checkResult, timeOf } from '../checks/read.ts';

const VERDICTS: Record<string, CheckVerdict | undefined> = { passed: 'pass', failed: 'fail', error: 'fail', skipped: undefined };

interface Platform {
  id?: string;
  name?: string;
}

function* resultsOf(profile: Fields, path: PathPart[], platform: Platform): Generator<CheckResult> {
  const target = platform.id ?? platform.name ?? 'target';
  for (const [c, control] of profile.objects('controls').entries()) {
    const cPath = [...path, 'controls', c];
    const check = checkId('inspec', control.string('id'), [...cPath, 'id'], 'the control’s ID');
    const title = control.string('title');
    for (const [i, r] of control.objects('results').entries()) {
      const at = [...cPath, 'results', i];
      const status = r.string('status');
      if (!status || !(status in VERDICTS)) throw fileError([...at, 'status'], 'expected the status: passed, failed, skipped or error');
      const verdict = VERDICTS[status];
      if (!verdict) continue;
      const resource = r.string('resource_id');
      const message = [r.string('code_desc') ?? title, r.string('message') ?? r.string('exception')].filter(Boolean).join(': ');
      yield checkResult({
        check,
        verdict,
        resourceId: resource ?? target,
        name: resource ?? (platform.name ? `${platform.name} ${target === platform.name ? '' : target}`.trim() : target),
        service: platform.name,
        message,
        time: timeOf(r.raw.start_time),
      });
    }
  }
}

/** Reads InSpec's JSON reporter: its platform, then its profiles (held until the platform is known). */
export const parseInspec: CheckParser = async function* (chunks) {
  const summary: CheckReportSummary = { format: 'inspec', results: 0 };
  let sawProfiles = false;
  const platform: Platform = {};
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    if (path.length === 0) {
      if (kind !== 'object')
        throw fileError([], `expected a Chef InSpec JSON report (a JSON object), found ${kind === 'array' ? 'a list' : kind}`);
      return 'walk';
    }
    if (path.length === 1) {
      if (path[0] === 'platform') return 'emit';
      if (path[0] !== 'profiles') return 'skip';
      if (kind !== 'array') throw fileError(path, 'expected a list of profiles');
      sawProfiles = true;
      return 'emit';
    }
    return 'skip';
  };
  let profiles: unknown[] = [];
  for await (const { path, value } of streamJson(chunks, { plan })) {
    if (path[0] === 'platform' && isObject(value)) {
      const p = fieldsOf(value, ['platform']);
      platform.name = p.string('name');
      platform.id = p.string('target_id');
      const scope = nameText(platform.id ?? undefined);
      if (scope) summary.scope = scope;
    } else if (path[0] === 'profiles') profiles = value as unknown[];
  }
  if (!sawProfiles) throw fileError(['profiles'], 'expected a Chef InSpec JSON report, which has “profiles”');
  for (const [p, profile] of profiles.entries()) {
    for (const result of resultsOf(fieldsOf(profile, ['profiles', p], 'a profile (an object)'), ['profiles', p], platform)) {
      summary.results += 1;
      yield result;
    }
  }
  return summary;
};
