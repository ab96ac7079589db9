// Shared by the check-results format tests: read a report through src/formats/checks/formats.ts the
// way the import does (chunks of bytes), and the one detail of a refusal.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ServiceError } from '../../src/shared/errors.ts';
import type { CheckResult, CheckReportSummary } from '../../src/domain/tests/check-result.ts';
import { checkFormat } from '../../src/formats/checks/formats.ts';
import { chunked } from './scanner-formats-read.ts';

/** Each format's sample report, by format name. */
export const CHECK_FIXTURES: Record<string, string> = {
  ocsf: 'prowler-ocsf.json',
  policyreport: 'kyverno-policyreports.json',
  checkov: 'checkov.json',
  'kube-bench': 'kube-bench.json',
  inspec: 'inspec.json',
};

export const checkFixture = (name: string) => readFileSync(new URL(`./fixtures/checks/${name}`, import.meta.url), 'utf8');

/** The parser of a format by name. */
export const parserOf = (name: string) => checkFormat(name)!.parse;

export async function readChecks(
  format: string,
  text: string,
  chunkSize = 4096,
): Promise<{ results: CheckResult[]; summary: CheckReportSummary }> {
  const gen = parserOf(format)(chunked(text, chunkSize));
  const results: CheckResult[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { results, summary: step.value };
    results.push(step.value);
  }
}

export async function checkError(format: string, text: string) {
  try {
    await readChecks(format, text, 7);
  } catch (error) {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, 'validation_failed');
    return error.details[0] as { field: string; message: string };
  }
  assert.fail(`expected ${format} to refuse the report`);
}
