// The closed value sets of the service: the spec's status lists, and the vocabularies for the
// fields whose values the spec leaves open ("allowed values of effortEstimate, recurrence, … not
// shown"). Routes, the demo generator and tests import them instead of retyping values.

export const POLICY_STATUSES = [
  'not_uploaded',
  'draft',
  'published',
  'needs_attention',
  'draft_approved',
  'needs_review',
  'pending_approval',
] as const;
export const EVIDENCE_STATUSES = [
  'not_uploaded',
  'uploaded',
  'needs_attention',
  'draft',
  'needs_review',
  'pending_approval',
  'needs_revision',
] as const;
/** `tests.result`, the stored outcome; the public status adds `affected` (see TEST_STATUSES). */
export const TEST_RESULTS = ['ignored', 'fix_required', 'passing'] as const;
export const TEST_STATUSES = ['ignored', 'fix_required', 'passing', 'affected'] as const;
/** `test_resources.status` */
export const TEST_RESOURCE_STATUSES = ['ignored', 'fix_required', 'passing'] as const;
export const VULNERABILITY_STATUSES = ['open', 'closed', 'acknowledged', 'ignored', 'risk'] as const;
export const VULNERABILITY_RESOURCE_STATUSES = VULNERABILITY_STATUSES;
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export const VULNERABILITY_SOURCES = [
  'aws',
  'github',
  'snyk',
  'sonarcloud',
  'qualys',
  'defender',
  'sentinelOne',
  'aikido',
  'tenable',
  'import',
  'api',
] as const;
export const FUNCTION_GROUPINGS = ['govern', 'identify', 'protect', 'detect', 'respond', 'recover'] as const;
export const CONTROL_SCOPES = ['in_scope', 'out_of_scope'] as const;
export const GAP_STATUSES = ['no_gaps', 'gaps_detected'] as const;

/** policies, evidence and tests: a rough size of the work left */
export const EFFORT_ESTIMATES = ['low', 'medium', 'high'] as const;
/**
 * policies: review cadence; evidence: collection cadence. An attachment's period follows it (see
 * `attachmentPeriod`); `one_time` evidence has no period.
 */
export const RECURRENCES = ['monthly', 'quarterly', 'semi_annually', 'yearly', 'one_time'] as const;
/** where a policy came from */
export const POLICY_SOURCES = ['template', 'custom', 'imported'] as const;
/** where an evidence request came from */
export const EVIDENCE_SOURCES = ['template', 'custom', 'auditor_request'] as const;
export const EVIDENCE_COLLECTION_METHODS = ['manual', 'automated', 'semi_automated'] as const;
/** whether staff must acknowledge the policy, or it is informational only */
export const POLICY_BEHAVIORS = ['requires_acknowledgement', 'informational'] as const;
/** policies and evidence; null means unassigned (`No Department` in filters) */
export const DEPARTMENTS = ['Engineering', 'Security', 'IT', 'People', 'Legal', 'Finance', 'Operations', 'Product'] as const;
export const TICKET_SOURCES = ['jira', 'linear'] as const;

const DAY = 86_400_000;

/**
 * The period an attachment dated `evidenceDate` covers under the evidence's recurrence: the UTC
 * calendar month, quarter, half-year or year containing the date; null bounds for `one_time` or
 * no recurrence. `periodEnd` is the last millisecond of the period.
 */
export function attachmentPeriod(
  recurrence: string | null,
  evidenceDate: number,
): { periodStart: number | null; periodEnd: number | null } {
  const d = new Date(evidenceDate);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  let months: number;
  switch (recurrence) {
    case 'monthly':
      months = 1;
      break;
    case 'quarterly':
      months = 3;
      break;
    case 'semi_annually':
      months = 6;
      break;
    case 'yearly':
      months = 12;
      break;
    default:
      return { periodStart: null, periodEnd: null };
  }
  const startMonth = Math.floor(m / months) * months;
  const periodStart = Date.UTC(y, startMonth, 1);
  const periodEnd = Date.UTC(y, startMonth + months, 1) - 1;
  return { periodStart, periodEnd };
}

export const DAY_MS = DAY;

/** The resources a plan and a credential's scopes name (src/domain/auth/scopes.ts). */
export const RESOURCES = ['framework', 'control', 'policy', 'evidence', 'test', 'vulnerability'] as const;
export type Resource = (typeof RESOURCES)[number];
