// The help texts, rendered from the command declarations so they cannot drift from the parser.
import { describeOptions } from './args.ts';
import { commandName, type Command } from './commands/command.ts';
import { COMMANDS } from './commands/index.ts';
import { GLOBAL_OPTIONS } from './context.ts';
import { EXIT_CODE_HELP } from './exit-codes.ts';

/** An "Examples:" block; each line is a command without the leading "compliance ". */
function examplesBlock(lines: string[]): string {
  return `Examples:\n${lines.map((l) => `  ${/^(cat|printf|source|kubectl) /.test(l) ? l : `compliance ${l}`}`).join('\n')}\n`;
}

const usageLine = (c: Command) => [commandName(c), c.args, c.group === 'export' ? '--dir DIR' : undefined].filter(Boolean).join(' ');

export function mainHelp(): string {
  const rows = COMMANDS.map((c) => [usageLine(c), c.summary]);
  const width = Math.max(...rows.map(([u]) => u.length));
  return `compliance: the command-line client of the Compliance Data REST Service

Usage: compliance COMMAND [ARGUMENTS] [OPTIONS]

Commands:
${rows.map(([u, s]) => `  ${u.padEnd(width)}  ${s}`).join('\n')}

"compliance COMMAND --help" lists a command's options: every filter of the API is a flag
(--framework-ids for frameworkIds); list flags take comma-separated values and may be repeated.
"vulns" and "findings" are short for "vulnerabilities".

Options of every command:
${describeOptions(GLOBAL_OPTIONS)}

Output: json (the response's data, pretty-printed), ndjson (one record a line) or table.
Results go to stdout; messages, errors and progress bars to stderr.

Credentials (environment variables override the profile; the secret is never a flag):
  COMPLIANCE_CLIENT_ID, COMPLIANCE_CLIENT_SECRET   the API credential
  COMPLIANCE_BASE_URL or COMPLIANCE_REGION         the service address, or a region (in, us, eu, au)
  COMPLIANCE_PROFILE                               the profile to use (default "default")
  COMPLIANCE_CONFIG                                the profile file; default
                                                   $XDG_CONFIG_HOME/compliance/credentials, or
                                                   ~/.config/compliance/credentials. It must be
                                                   private (chmod 600): others' access is refused.
  COMPLIANCE_MAX_RETRIES, COMPLIANCE_TIMEOUT       as --max-retries and --timeout
  COMPLIANCE_TOKEN_CACHE                           0 turns the token cache off, as --no-token-cache
"compliance configure" writes a profile; "compliance whoami" shows what is in use.

Token cache: the access token (a bearer token, valid up to an hour) is kept between runs, so
quick runs in a loop do not wait on the token endpoint's limit (10 requests a minute). One file
per credential and address in $XDG_CACHE_HOME/compliance/, or ~/.cache/compliance/ (directory
0700, file 0600); a file others can read, or another user owns, is ignored. --no-token-cache
(or COMPLIANCE_TOKEN_CACHE=0) neither reads nor writes it; deleting the directory is safe.

${EXIT_CODE_HELP}

${examplesBlock([
  'configure',
  'controls list --status non_compliant --function-groupings protect',
  'vulns list --severity critical -o ndjson | jq -r .vulnerabilityId',
  'vulns create --file examples/finding.json --idempotency-key create-vul-9050',
  'export --dir ./export',
  'api /v1/frameworks',
])}
Shell completion: source <(compliance completion bash)   (or zsh)
`;
}

export function commandHelp(command: Command): string {
  const positional = command.args ? ` ${command.args}` : '';
  return `Usage: compliance ${commandName(command)}${positional} [OPTIONS]

${command.summary[0].toUpperCase()}${command.summary.slice(1)}.

Options:
${command.options.length ? describeOptions(command.options) : '  (none of its own)'}
${command.notes ? `\n${command.notes}\n` : ''}
${examplesBlock(command.examples)}
Options of every command: -o/--output json|table|ndjson, --profile NAME, --base-url URL,
--region REGION, --max-retries N, --timeout SECONDS, --progress, --no-progress, --no-token-cache
("compliance --help" explains them, the credentials and the exit codes).
`;
}

export function groupHelp(group: string, commands: Command[]): string {
  const rows = commands.map((c) => [usageLine(c), c.summary]);
  const width = Math.max(...rows.map(([u]) => u.length));
  return `Usage: compliance ${group} ACTION [OPTIONS]

${rows.map(([u, s]) => `  ${u.padEnd(width)}  ${s}`).join('\n')}

${examplesBlock(commands.map((c) => c.examples[0]))}
"compliance ${group} ACTION --help" lists the options of an action.
`;
}
