// Tells a lost or refused database connection (answer 503, retry later) apart from a bug (500).
import { DependencyUnavailableError } from '../../shared/errors.ts';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

export function asDependencyError(err: unknown): DependencyUnavailableError | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    // 08xxx: connection exceptions; 57P0x: the server is shutting down or starting up.
    if (NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')) {
      return new DependencyUnavailableError('database', 'connection unavailable', { cause: err });
    }
    // SQLite: the file is locked by another writer longer than busy_timeout, or the disk failed.
    if (code === 'ERR_SQLITE_ERROR' && /locked|busy|disk I\/O/i.test(err.message)) {
      return new DependencyUnavailableError('database', 'database busy', { cause: err });
    }
  }
  if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(err.message)) {
    return new DependencyUnavailableError('database', 'connection unavailable', { cause: err });
  }
  if (err instanceof AggregateError && err.errors.some((e) => asDependencyError(e))) {
    return new DependencyUnavailableError('database', 'connection unavailable', { cause: err });
  }
  return undefined;
}

/** A unique constraint refused an insert: PostgreSQL 23505, or SQLite's "UNIQUE constraint failed". */
export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (code === '23505') return true;
  return code === 'ERR_SQLITE_ERROR' && /UNIQUE constraint failed/i.test(err.message);
}
