// The SDK quickstart (docs/getting-started.md): run with COMPLIANCE_CLIENT_ID / COMPLIANCE_CLIENT_SECRET
// set to a Read & Write credential (the demo's, printed by `npm start`), and COMPLIANCE_BASE_URL when
// the service is not on http://127.0.0.1:3000: the variables the `compliance` command reads too.
// Running it twice replays the write instead of doing it again.
import { ComplianceApiError, ComplianceClient, ComplianceError, ConnectionError } from '@compliance-data/sdk';

const client = new ComplianceClient({
  baseUrl: process.env.COMPLIANCE_BASE_URL ?? 'http://127.0.0.1:3000',
  clientId: process.env.COMPLIANCE_CLIENT_ID,
  clientSecret: process.env.COMPLIANCE_CLIENT_SECRET,
  maxRetries: 1, // a quickstart should fail fast; the default is 3
});

try {
  // One call per list (no pagination except findings); filters are typed from the server's schemas.
  const { data: frameworks } = await client.frameworks.list();
  for (const f of frameworks) console.log(`${f.frameworkName}: controls ${f.complianceProgress.controls.percentage}%`);
  const { data: failing } = await client.controls.list({ status: ['non_compliant'], functionGroupings: ['protect'] });
  console.log(`${failing.length} protect controls are non-compliant`);

  // Findings: every page in turn, checked against totalCount at the end.
  let critical = 0;
  for await (const _ of client.vulnerabilities.list({ severity: ['critical'] })) critical += 1;
  console.log(`${critical} critical findings`);

  // A write: one Idempotency-Key for all retries; running the script again replays the first answer.
  const created = await client.vulnerabilities.create(
    { vulnerabilityId: 'VUL-9043', title: 'Outdated TLS on the edge proxy', severity: 'high', status: 'open' },
    { idempotencyKey: 'quickstart-vul-9043' },
  );
  console.log(created.data.vulnerabilityId, 'replayed:', created.response.idempotentReplayed);
} catch (err) {
  // One line a person can act on, instead of a stack trace.
  if (err instanceof ConnectionError) console.error(`${err.message}: is the service running? (COMPLIANCE_BASE_URL sets the address)`);
  else if (err instanceof ComplianceApiError) console.error(`${err.status} ${err.code}: ${err.message}`, err.details, err.requestId ?? '');
  else if (err instanceof ComplianceError) console.error(err.message);
  else throw err;
  process.exitCode = 1;
}
