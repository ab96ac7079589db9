// What a new demo organization prints: its size, the credentials' secrets (shown only this once)
// and how to try them.
import type { DemoResult } from './create-demo-organization.ts';

export function formatDemoCredentials(demo: DemoResult, baseUrl: string): string {
  const s = demo.summary;
  return `${[
    '',
    `Demo organization "${demo.organization.name}" (${demo.organization.id})`,
    `  ${s.frameworks} frameworks, ${s.controls} controls, ${s.policies} policies, ${s.evidence} evidence, ${s.tests} tests, ${s.vulnerabilities} vulnerabilities`,
    '',
    'Demo credentials (the secrets are shown only now; only their hashes are stored):',
    `  Read Only      client_id=${demo.readOnly.clientId}`,
    `                 client_secret=${demo.readOnly.clientSecret}`,
    `  Read & Write   client_id=${demo.readWrite.clientId}`,
    `                 client_secret=${demo.readWrite.clientSecret}`,
    '',
    `Developer console: ${baseUrl}/console`,
    `  email=${demo.admin.email}`,
    `  password=${demo.admin.password}`,
    '',
    'Try it:',
    `  curl -s ${baseUrl}/oauth/token -H 'Content-Type: application/json' \\`,
    `    -d '{"grant_type":"client_credentials","client_id":"${demo.readOnly.clientId}","client_secret":"${demo.readOnly.clientSecret}"}'`,
    '',
  ].join('\n')}\n`;
}
