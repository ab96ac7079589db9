// What every start of the server prints once it listens: where the API, the console and the API
// reference are, and, when this start printed no credential (only the first start of an empty
// embedded database does), the `cds` commands that make one.
export interface StartFacts {
  /** the address clients use, e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  /** organizations in the database after start-up */
  organizations: number;
  /** this start created the demo organization and printed its credentials */
  demoPrinted: boolean;
}

/** The links, by name, as the text and the JSON log line give them. */
export function startLinks(baseUrl: string) {
  return {
    api: `${baseUrl}/v1`,
    token: `${baseUrl}/oauth/token`,
    console: `${baseUrl}/console`,
    docs: `${baseUrl}/docs`,
    openapi: `${baseUrl}/openapi.json`,
  };
}

/** The next steps for someone who has no credential in hand. */
function credentialHint(facts: StartFacts): string[] {
  if (facts.demoPrinted) return [];
  if (facts.organizations === 0)
    return [
      'The database holds no organization yet. Load the demo organization (it prints credentials):',
      '  npm run cds -- demo',
      'or create your own, then a credential for it (its secret is printed once):',
      '  npm run cds -- org create --name "Acme"',
      '  npm run cds -- credential create --org "Acme" --access read_only',
    ];
  return [
    'No credential was printed at this start (secrets are shown only when made). Make one with:',
    '  npm run cds -- credential create --org "<organization name or ID>" --access read_only',
    '  (npm run cds -- org list names the organizations)',
    'A lost console password: npm run cds -- admin reset-password --email <email>',
  ];
}

/** The text printed at a terminal, after the listening line. */
export function formatStartBanner(facts: StartFacts): string {
  const links = startLinks(facts.baseUrl);
  const hint = credentialHint(facts);
  return `${[
    '',
    'Compliance Data REST Service is ready:',
    `  API            ${links.api}   (access tokens: POST ${links.token})`,
    `  Console        ${links.console}`,
    `  API reference  ${links.docs}`,
    `  OpenAPI        ${links.openapi}`,
    ...(hint.length > 0 ? ['', ...hint] : []),
    '',
  ].join('\n')}\n`;
}

/** The same facts as one JSON log line's fields and message, for log collectors. */
export function startLogEntry(facts: StartFacts): { fields: Record<string, unknown>; message: string } {
  const links = startLinks(facts.baseUrl);
  const hint = credentialHint(facts);
  return {
    fields: { links },
    message: `Ready: API ${links.api}, console ${links.console}, API reference ${links.docs}${hint.length > 0 ? `. ${hint.map((l) => l.trim()).join(' ')}` : ''}`,
  };
}
