// Shared by the test/http/test-results-import*.test.ts files and the CLI's: sending a checker's
// report to POST /v1/tests/results/imports (raw body or multipart), the checkers' fixtures (written
// from each format's published shape, test/unit/fixtures/checks/), and a small SOC 2 program whose
// tests name checks, applied as a program document.
import { readFileSync } from 'node:fs';
import { createOrgWithCredential, getToken, type TestServer } from './server.ts';
import { programContext, programVerbs } from './program.ts';
import { importFile, type ImportOptions } from './vulnerability-imports.ts';

/** POST /v1/tests/results/imports with the report as the raw body (default) or as a multipart part. */
export const importResults = (
  server: Pick<TestServer, 'url'>,
  token: string | undefined,
  format: string,
  file: string | Uint8Array,
  options: ImportOptions = {},
) => importFile(server, token, format, file, { ...options, path: '/v1/tests/results/imports' });

export const checkFixture = (name: string) => readFileSync(new URL(`../unit/fixtures/checks/${name}`, import.meta.url), 'utf8');

/** Each format's sample, a check it has results for, and what that check's test becomes. */
export const CHECK_SAMPLES = [
  { format: 'ocsf', file: 'prowler-ocsf.json', check: 'prowler:s3_bucket_default_encryption', status: 'fix_required', resources: 2 },
  {
    format: 'policyreport',
    file: 'kyverno-policyreports.json',
    check: 'kyverno:require-labels/check-for-labels',
    status: 'fix_required',
    resources: 4,
  },
  { format: 'checkov', file: 'checkov.json', check: 'checkov:CKV_AWS_19', status: 'fix_required', resources: 2 },
  { format: 'kube-bench', file: 'kube-bench.json', check: 'kube-bench:1.1.1', status: 'passing', resources: 1 },
  { format: 'inspec', file: 'inspec.json', check: 'inspec:os-02', status: 'fix_required', resources: 1 },
] as const;

/** The program of checkedProgram (below), with `more` tests after its two. */
export const checkedProgramDocument = (checks: readonly string[], more: readonly Record<string, unknown>[] = []) => ({
  version: 1,
  frameworks: [{ key: 'soc2', name: 'SOC 2', requirements: [{ key: 'CC6.1', code: 'CC6.1', name: 'Logical access' }] }],
  controls: [
    {
      key: 'encryption',
      code: 'CTL-1',
      name: 'Data at rest is encrypted',
      domain: 'Data Protection',
      functionGrouping: 'protect',
      requirements: ['soc2/CC6.1'],
    },
  ],
  tests: [
    {
      key: 's3_encryption',
      name: 'S3 buckets are encrypted',
      result: 'fix_required',
      checks,
      controls: ['encryption'],
      requirements: ['soc2/CC6.1'],
    },
    { key: 'root_mfa', name: 'Root has MFA', result: 'fix_required', checks: ['prowler:iam_root_mfa_enabled'] },
    ...more,
  ],
});

/**
 * An organization with a Read & Write credential and a SOC 2 program: requirement CC6.1, control
 * `encryption` (CTL-1) whose one test `s3_encryption` names `checks`, and a second test
 * `root_mfa` naming `prowler:iam_root_mfa_enabled`. Both tests start `fix_required`.
 */
export async function checkedProgram(server: TestServer, checks: string[], name = 'Checks Org') {
  const client = await createOrgWithCredential(server.system, { accessLevel: 'read_write', name });
  const token = await getToken(server.url, client);
  const verbs = programVerbs(programContext(server, client.credentialId), client.organizationId);
  const plan = await verbs.apply(checkedProgramDocument(checks));
  const idOf = (key: string) => plan.changes.find((c) => c.key === key)!.id;
  return {
    client,
    token,
    verbs,
    organizationId: client.organizationId,
    testId: idOf('s3_encryption'),
    rootTestId: idOf('root_mfa'),
    controlId: idOf('encryption'),
  };
}
