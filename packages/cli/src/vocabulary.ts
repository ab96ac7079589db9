// The API's enumerations and optional fields, as the specification lists them. The CLI shows them
// in the help and uses the optional list fields for complete exports; it does not refuse other
// values itself (the service answers 400 validation_failed, exit 6), so a value the service adds
// works before this list is updated.
export const CONTROL_STATUS = ['compliant', 'non_compliant', 'not_applicable'] as const;
export const FUNCTION_GROUPINGS = ['govern', 'identify', 'protect', 'detect', 'respond', 'recover'] as const;
export const CONTROL_SCOPE = ['in_scope', 'out_of_scope'] as const;
export const POLICY_STATUS = ['not_uploaded', 'draft', 'published', 'needs_attention', 'draft_approved', 'needs_review', 'pending_approval'] as const;
export const EVIDENCE_STATUS = ['not_uploaded', 'uploaded', 'needs_attention', 'draft', 'needs_review', 'pending_approval', 'needs_revision'] as const;
export const TEST_STATUS = ['ignored', 'fix_required', 'passing', 'affected'] as const;
export const VULNERABILITY_STATUS = ['open', 'closed', 'acknowledged', 'ignored', 'risk'] as const;
export const VULNERABILITY_CREATE_STATUS = ['open', 'closed', 'acknowledged'] as const;
export const SEVERITY = ['critical', 'high', 'medium', 'low'] as const;
export const SOURCE = ['aws', 'github', 'snyk', 'sonarcloud', 'qualys', 'defender', 'sentinelOne', 'aikido', 'tenable', 'import', 'api'] as const;
export const FIX_AVAILABLE = ['yes', 'no'] as const;
export const PAGE_SIZES = [50, 100] as const;

/** Optional fields of each list (`fields` on the list endpoints). */
export const LIST_FIELDS = {
  frameworks: ['addedBy', 'addedOn', 'lastModifiedBy', 'modifiedOn', 'tscSelections'],
  controls: ['mappedFrameworkIds', 'outOfScopeReason', 'markedOutOfScopeBy', 'addedBy', 'addedOn', 'lastModifiedBy', 'modifiedOn'],
  policies: [
    'policyBehavior',
    'mappedFrameworkIds',
    'mappedControlIds',
    'notRelevantReason',
    'versionNumber',
    'effortEstimate',
    'recurrence',
    'source',
    'publishedBy',
    'publishedOn',
    'addedBy',
    'addedOn',
    'lastModifiedBy',
    'modifiedOn',
  ],
  evidence: [
    'mappedFrameworkIds',
    'mappedControlIds',
    'notRelevantReason',
    'recurrence',
    'effortEstimate',
    'source',
    'evidenceCollectionMethod',
    'ticketsCount',
    'addedBy',
    'addedOn',
    'lastModifiedBy',
    'modifiedOn',
  ],
  tests: ['mappedFrameworkIds', 'effortEstimate', 'ignoreReason', 'addedOn', 'modifiedOn', 'ticketsCount'],
  vulnerabilities: ['cvssScore', 'resourcesCount', 'firstSeen'],
} as const;

/** Expansions of each get-one endpoint (`fields` on `/{id}`). */
export const GET_FIELDS = {
  controls: ['complianceOverview', 'mappedArtifacts', 'mappedRisks'],
  policies: ['aiDetectedGaps', 'documents', 'versionHistory', 'tickets'],
  evidence: ['mappedTests', 'gaps', 'attachments', 'tickets'],
  tests: ['tickets', 'mappedRisks', 'testHistory'],
  vulnerabilities: ['affectedResources', 'tickets', 'mappedRisks'],
} as const;

/** The spec's limits on one upload, checked before any byte is sent. */
export const UPLOAD_LIMITS = { files: 5, totalBytes: 100 * 1024 * 1024 } as const;

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9._~-]{1,128}$/;
