// Turns whatever ended a command into a message on stderr and an exit code (exit-codes.ts). API
// errors print `code: message`, their details and the request ID (what support asks for); a
// failed write also prints its Idempotency-Key, the one thing that makes retrying it safe.
import { UsageError } from './args.ts';
import { EXIT, type ExitCode } from './exit-codes.ts';
import { InterruptedError } from './interrupt.ts';
import type { Io } from './io.ts';
import { ConfigurationError } from './profile.ts';
import { UnreachableError } from './unreachable.ts';
import {
  AuthenticationError,
  ComplianceApiError,
  ComplianceError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
} from './sdk.ts';

export function exitCodeFor(err: unknown): ExitCode {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof ConfigurationError) return EXIT.authentication;
  if (err instanceof InterruptedError) return EXIT.interrupted;
  if (err instanceof ValidationError) return EXIT.validation;
  if (err instanceof AuthenticationError) return EXIT.authentication;
  if (err instanceof PermissionDeniedError) return EXIT.permission;
  if (err instanceof NotFoundError) return EXIT.notFound;
  if (err instanceof ConflictError) return EXIT.conflict;
  if (err instanceof RateLimitError) return EXIT.rateLimited;
  if (err instanceof InternalServerError || err instanceof ServiceUnavailableError) return EXIT.unavailable;
  if (err instanceof ComplianceApiError) return err.status >= 500 ? EXIT.unavailable : EXIT.unexpected;
  if (err instanceof ConnectionError || err instanceof TimeoutError || err instanceof UnreachableError) return EXIT.unavailable;
  return EXIT.unexpected;
}

/** Errors after which the write may or may not have happened: retrying with the same key is the safe way on. */
function outcomeUnknown(err: unknown): boolean {
  return (
    err instanceof ConnectionError ||
    err instanceof UnreachableError ||
    err instanceof TimeoutError ||
    err instanceof InterruptedError ||
    err instanceof RateLimitError ||
    err instanceof InternalServerError ||
    err instanceof ServiceUnavailableError ||
    (err instanceof ConflictError && err.code === 'idempotency_request_in_progress')
  );
}

export function reportError(err: unknown, io: Io, options: { debug?: boolean } = {}): ExitCode {
  const code = exitCodeFor(err);
  const lines: string[] = [];
  if (err instanceof UsageError) {
    lines.push(`compliance: ${err.message}`, 'Run "compliance --help" (or "compliance COMMAND --help") for usage.');
  } else if (err instanceof ComplianceApiError) {
    lines.push(`compliance: ${err.code}: ${err.message}`);
    for (const detail of err.details) lines.push(`  ${describeDetail(detail)}`);
    if (err instanceof RateLimitError && err.retryAfterSec !== undefined) lines.push(`  retry after: ${err.retryAfterSec} s`);
    lines.push(`  HTTP status: ${err.status}`);
    if (err.requestId) lines.push(`  request ID: ${err.requestId}`);
  } else if (
    err instanceof ComplianceError ||
    err instanceof ConfigurationError ||
    err instanceof InterruptedError ||
    err instanceof UnreachableError
  ) {
    lines.push(`compliance: ${err.message}`);
  } else if (err instanceof Error) {
    lines.push(`compliance: unexpected error: ${options.debug ? (err.stack ?? err.message) : err.message}`);
    if (!options.debug) lines.push('  (set COMPLIANCE_DEBUG=1 for the stack trace)');
  } else {
    lines.push(`compliance: unexpected error: ${String(err)}`);
  }
  const key = (err as { idempotencyKey?: unknown } | null)?.idempotencyKey;
  if (typeof key === 'string') {
    lines.push(`  idempotency key: ${key}`);
    if (outcomeUnknown(err))
      lines.push(
        `  The write may or may not have been done. Run the same command again with --idempotency-key ${key}: it is done at most once.`,
      );
  }
  io.err(lines.join('\n'));
  return code;
}

function describeDetail(detail: unknown): string {
  if (detail && typeof detail === 'object') {
    const d = detail as Record<string, unknown>;
    if (typeof d.field === 'string' && typeof d.message === 'string') return `${d.field}: ${d.message}`;
    if (typeof d.dependency === 'string') return `${d.dependency}: ${String(d.issue ?? '')}`;
  }
  return JSON.stringify(detail);
}
