// The spec's retry rules in one place. Retried: 429 (after Retry-After), 500, 503, and network
// failures and time-outs (decided by the sender, which sees those). A 409
// `idempotency_request_in_progress` means "retry later with the same key". A 401 that says the
// token is stale or unknown gets one token renewal. Everything else (400, 403, 404, a reused
// key, a revoked token or credential) is final: repeating the same request cannot succeed.
import type { ComplianceApiError } from '../errors.ts';

export type Verdict = 'renew-token' | 'retry' | 'final';

export function verdictFor(error: ComplianceApiError, usedToken: boolean): Verdict {
  switch (error.status) {
    case 401:
      return usedToken && (error.code === 'token_stale' || error.code === 'unauthorized') ? 'renew-token' : 'final';
    case 409:
      return error.code === 'idempotency_request_in_progress' ? 'retry' : 'final';
    case 429:
    case 500:
    case 503:
      return 'retry';
    default:
      return 'final';
  }
}
