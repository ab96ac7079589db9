// Exit codes of `cds`, so scripts can tell a mistake in the command line from a missing record or
// a broken configuration. Listed in `cds --help` and docs/cli.md.
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** `cds program plan`: the plan has changes (as `terraform plan -detailed-exitcode`) */
  changes: 2,
  notFound: 4,
  configuration: 78,
} as const;

export const EXIT_CODE_HELP =
  'Exit codes: 0 success, 1 failure, 2 usage error (unknown command or flag, a missing or unreadable\n' +
  'value; for `program plan`: the plan has changes), 4 not found, 78 configuration error.';
