// compliance tests import --format FORMAT [--scope SCOPE] FILE
// A checker's report (or its standard input, FILE `-`) streamed to POST /v1/tests/results/imports
// through the SDK, the way `vulnerabilities import` sends a scanner's file (./vulnerabilities-import.ts
// runs both): every test naming a check the report has results for takes the report as its run.
import { UsageError } from '../args.ts';
import type { CheckFormat, TestResultsImport } from '../sdk.ts';
import { formatBytes } from '../progress.ts';
import { CHECK_FORMAT } from '../vocabulary.ts';
import type { Command } from './command.ts';
import { importOptions, runFileImport } from './vulnerabilities-import.ts';

export const testImportCommand: Command = {
  group: 'tests',
  action: 'import',
  summary: "import a checker's report (Prowler, Kyverno, Checkov, kube-bench, InSpec) as test runs (extension)",
  examples: [
    'tests import --format ocsf output/prowler-output-123456789012.ocsf.json',
    'tests import --format ocsf --scope aws-prod output/scan.ocsf.json   # after: prowler aws --output-formats json-ocsf -F scan',
    'kubectl get policyreports,clusterpolicyreports -A -o json | compliance tests import --format policyreport --scope prod -',
    'tests import --format checkov --scope github.com/acme/infra checkov.json --json',
  ],
  args: 'FILE',
  positionals: { min: 1, max: 1, name: 'FILE (a path, or - for standard input)' },
  options: importOptions(
    CHECK_FORMAT,
    "the report's format (required)",
    "what was checked (an account, a cluster, a repository); default: the report's own, where its format names one",
  ),
  notes: [
    'A test names the checks it is made of (checks: [prowler:s3_bucket_default_encryption, …] in the',
    'program document). Each test naming a check the report has results for takes the report as its',
    'run: its flagged resources (one per resource, failing where a check fails), its status, its scan',
    'time and history; the controls and frameworks follow. A re-import of the same --scope replaces the',
    'resources that scope reported; the same report again writes nothing. Checks no test names are',
    'counted and listed (unmatched): map them. A report the service cannot read as FORMAT is refused',
    'with validation_failed (exit 6) naming the place in the file; nothing is written. A report the',
    'service takes as a job is followed until it ends. Formats and their mappings: docs/check-results.md.',
  ].join('\n'),
  async run(ctx, values, [file]) {
    const format = values.format as string | undefined;
    if (format === undefined) throw new UsageError(`--format is required: ${CHECK_FORMAT.join(', ')}`);
    const scope = values.scope as string | undefined;
    await runFileImport(ctx, values, file as string, {
      stdinHint: "pipe the checker's report in",
      send: (client, source, options) => client.tests.importResults({ format: format as CheckFormat, scope, file: source }, options),
      summary,
    });
  },
};

/** The lines a person reads: what was imported into what, what it did to the tests, and the checks no test names. */
export function summary(data: TestResultsImport, size: number | undefined): string {
  const what = `${data.format}${size === undefined ? '' : ` (${formatBytes(size)})`}`;
  const where = data.scope === null ? 'no scope' : `scope ${data.scope}`;
  const tests = (['updated', 'unchanged', 'older', 'ignored'] as const).map((k) => `${data.tests[k]} ${k}`).join(', ');
  const lines = [`imported ${what} into ${where}: ${data.results} results, ${data.matched} of checks that tests name`, `tests: ${tests}`];
  if (data.unmatched.checks > 0) {
    const shown = data.unmatched.list.slice(0, 10).map((u) => `${u.check} (${u.results})`);
    const more = data.unmatched.checks - shown.length;
    lines.push(
      `unmatched: ${data.unmatched.checks} checks no test names (${data.unmatched.results} results): ${shown.join(', ')}${more > 0 ? `, and ${more} more (--json lists them)` : ''}`,
    );
  }
  return lines.join('\n');
}
