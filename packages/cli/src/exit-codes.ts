// Exit codes tell error classes apart, so scripts can decide what to do (retry later, fix the
// credentials, give up) without parsing messages. Documented in `compliance --help` and README.md.
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  /** `program plan`: the plan has changes */
  changes: 2,
  authentication: 3,
  notFound: 4,
  permission: 5,
  validation: 6,
  conflict: 7,
  rateLimited: 8,
  unavailable: 9,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_HELP = `Exit codes:
  0  success
  1  unexpected error (including a walk whose count disagreed with totalCount)
  2  usage error: unknown command or flag, a flag value that cannot be read, an unreadable file;
     for program plan: the document would change something
  3  authentication: no credentials configured, an unsafe profile file, 401 / invalid_client
  4  not found (404)
  5  permission denied (403 forbidden or plan_restricted; e.g. a Read Only credential writing)
  6  validation failed (400; e.g. an unknown filter value)
  7  conflict (409: idempotency key reused with another body, or still in progress)
  8  rate limited (429 still after the retries)
  9  network failure, time-out, or the service unavailable (5xx)
  130 interrupted (Ctrl-C)`;
