// The artifacts (policies, evidence, tests) and their children. Row types as Kysely sees them (see ../schema.ts for the conventions).
import type { Bool, Ms } from './columns.ts';
import type { Generated } from 'kysely';

/** The columns a policy and an evidence record share: the review state and its bookkeeping. */
interface ReviewedArtifactColumns {
  id: string;
  organization_id: string;
  name: string;
  status: string;
  department: string | null;
  is_relevant: Bool;
  not_relevant_reason: string | null;
  next_review_date: Ms | null;
  gap_status: string;
  effort_estimate: string | null;
  recurrence: string | null;
  source: string | null;
  requirement_text: string | null;
  added_by: string | null;
  added_on: Ms;
  last_modified_by: string | null;
  modified_on: Ms | null;
}

export interface PoliciesTable extends ReviewedArtifactColumns {
  custom_id: string;
  ai_detected_gaps: string;
  policy_behavior: string | null;
  version_number: string | null;
  published_by: string | null;
  published_on: Ms | null;
}

export interface PolicyDocumentsTable {
  id: string;
  organization_id: string;
  policy_id: string;
  display_name: string;
  type: string;
  url: string | null;
  note: string | null;
  added_by: string | null;
  added_on: Ms;
  updated_by: string | null;
  updated_on: Ms | null;
}

export interface PolicyVersionsTable {
  id: string;
  organization_id: string;
  policy_id: string;
  version_name: string;
  published_by: string | null;
  published_on: Ms;
}

export interface EvidenceTable extends ReviewedArtifactColumns {
  gaps: string;
  collection_method: string | null;
  revision_requested_by: string | null;
  revision_requested_on: Ms | null;
  rejection_reason: string | null;
  /** when the latest attachment period ends (migration 0016): time makes the record stale then */
  stale_at?: Ms | null;
}

export interface AttachmentsTable {
  id: string;
  organization_id: string;
  evidence_id: string;
  display_name: string;
  type: string;
  /** an external link a user added; files the service hosts have none */
  url: string | null;
  note: string | null;
  blob_key: string | null;
  size_bytes: number | null;
  sha256: string | null;
  upload_id: string | null;
  evidence_date: Ms;
  period_start: Ms | null;
  period_end: Ms | null;
  added_by: string | null;
  added_on: Ms;
  updated_by: string | null;
  updated_on: Ms | null;
}

export interface EvidenceTestsTable {
  organization_id: string;
  evidence_id: string;
  test_id: string;
}

export interface ApplicationsTable {
  id: string;
  organization_id: string;
  name: string;
}

export interface TestsTable {
  id: string;
  organization_id: string;
  /** 'automated' or 'cloud': one ID space */
  kind: string;
  name: string;
  /** stored result: ignored, fix_required or passing; `affected` is computed from integration_failing */
  result: string;
  integration_failing: Bool;
  description: string | null;
  remediation: string | null;
  notes: string | null;
  effort_estimate: string | null;
  ignore_reason: string | null;
  last_scanned_on: Ms | null;
  added_on: Ms;
  modified_on: Ms | null;
  /** JSON list of the checks the test is made of (`<tool>:<id>`); '[]' by default (migration 0022) */
  checks: Generated<string>;
}

export interface TestApplicationsTable {
  organization_id: string;
  test_id: string;
  application_id: string;
}

export interface TestResourcesTable {
  id: string;
  organization_id: string;
  test_id: string;
  resource_id: string;
  name: string;
  status: string;
  last_scanned_at: Ms | null;
  first_detected: Ms | null;
  tags: string;
  region: string | null;
  service: string | null;
  account_id: string | null;
  environment: string | null;
  link: string | null;
  description: string | null;
  /** the scope of the check-results import that reported it ('' without one); NULL when pushed or from a program (migration 0022) */
  import_scope: string | null;
}

/** The last check-results import of each format and request scope (migration 0022). */
export interface TestResultImportsTable {
  organization_id: string;
  format: string;
  /** the request's scope, '' without one */
  scope: string;
  sha256: string;
  /** the organization's tests data version after the import */
  tests_version: Ms;
  /** JSON: the import's answer */
  answer: string;
  imported_at: Ms;
}

export interface TestHistoryTable {
  id: string;
  organization_id: string;
  test_id: string;
  scanned_on: Ms;
  status: string;
}
