// Shared by test/http/test-results*.test.ts and test/http/control-scope*.test.ts: a small program
// (one framework, one requirement, controls, a test and an evidence record mapped to them), and
// the two moves' requests.
import { api, type TestServer } from './server.ts';
import { newKey, newOrg, writeHeaders, type Body, type Response } from './vulnerability-writes.ts';

/** POST /v1/tests/{testId}/results. */
export function pushResult(
  server: TestServer,
  token: string,
  testId: string,
  body: Body | string,
  key: string | null = newKey(),
): Promise<Response> {
  return api(server.url, `/v1/tests/${encodeURIComponent(testId)}/results`, token, {
    method: 'POST',
    headers: writeHeaders(key),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** PATCH /v1/controls/{controlId}. */
export function patchControl(
  server: TestServer,
  token: string,
  controlId: string,
  body: Body | string,
  key: string | null = newKey(),
): Promise<Response> {
  return api(server.url, `/v1/controls/${encodeURIComponent(controlId)}`, token, {
    method: 'PATCH',
    headers: writeHeaders(key),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * An organization with a Read & Write credential and a program: framework F with requirement R;
 * control C (mapped to R) whose artifacts are test T and a published policy; control D (mapped
 * to R) with only the policy. T starts `fix_required` (or as given), so C is non_compliant and a
 * passing result makes it compliant.
 */
export async function smallProgram(
  server: TestServer,
  opts: { result?: 'fix_required' | 'passing' | 'ignored'; integrationFailing?: boolean; name?: string } = {},
) {
  const org = await newOrg(server, opts.name ?? 'Moves Org');
  const { base } = org;
  const frameworkId = await base.framework('Framework F');
  const requirementId = await base.requirement(frameworkId, 'R-1');
  const controlId = await base.control('C-1', { requirementIds: [requirementId] });
  const otherControlId = await base.control('D-1', { requirementIds: [requirementId] });
  const testId = await base.test(opts.result ?? 'fix_required', { integrationFailing: opts.integrationFailing });
  const policyId = await base.policy('published');
  await base.map('test', testId, { controlIds: [controlId], requirementIds: [requirementId] });
  await base.map('policy', policyId, { controlIds: [controlId, otherControlId], requirementIds: [requirementId] });
  return { ...org, organizationId: org.client.organizationId, frameworkId, requirementId, controlId, otherControlId, testId, policyId };
}
