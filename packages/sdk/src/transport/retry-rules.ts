// The spec's retry rules in one place. Retried: 429 (after Retry-After), 500, 503, and network
// failures and time-outs (decided by the sender, which sees those). 502 and 504 come from a proxy
// or load balancer in front of the service (the spec is silent on them); they are retried like
// 503, as stripe-node and octokit do: reads are harmless to repeat, and every write carries one
// Idempotency-Key for all its attempts, so a write the service did finish is replayed, not redone. A 409
// `idempotency_request_in_progress` means "retry later with the same key". A 401 that says the
// token is stale or unknown gets one token renewal. Everything else (400, 403, 404, a reused
// key, a revoked token or credential) is final: repeating the same request cannot succeed.
import type { ComplianceApiError } from '../errors.ts';
import type { RetryReason } from './hooks.ts';

export type Verdict = 'renew-token' | 'retry' | 'final';

export function verdictFor(error: ComplianceApiError, usedToken: boolean): Verdict {
  switch (error.status) {
    case 401:
      return usedToken && (error.code === 'token_stale' || error.code === 'unauthorized') ? 'renew-token' : 'final';
    case 409:
      return error.code === 'idempotency_request_in_progress' ? 'retry' : 'final';
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return 'retry';
    default:
      return 'final';
  }
}

export function retryReason(error: ComplianceApiError): RetryReason {
  if (error.status === 429) return 'rate_limited';
  if (error.status === 409) return 'in_progress';
  return 'server_error';
}
