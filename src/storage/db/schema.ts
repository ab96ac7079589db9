// Row types of every table, as Kysely sees them. Column names are snake_case in SQL; repositories
// convert rows to camelCase domain objects at their edge. Times are epoch milliseconds (bigint in
// PostgreSQL, INTEGER in SQLite); booleans are 0/1 in SQLite, so readers pass them through Boolean().
// JSON arrays (tags, gaps, questions…) are TEXT holding JSON in both engines: they are never filtered.
import type { ColumnType, Generated } from 'kysely';

type Bool = ColumnType<boolean | number, boolean, boolean>;
type Ms = number;

/** The kinds of record that links (people, entities, tickets, risks) can hang from. */
export type SubjectType = 'framework' | 'control' | 'policy' | 'evidence' | 'test' | 'test_resource' | 'vulnerability';
export type ArtifactType = 'policy' | 'evidence' | 'test';

export interface OrganizationsTable {
  id: string;
  name: string;
  region: string;
  /** comma-separated resource names the plan includes */
  plan: string;
  /** the data version of each kind (src/shared/data-versions.ts): bumped by the writes that change that kind; they key cached answers */
  controls_version: Generated<number>;
  policies_version: Generated<number>;
  evidence_version: Generated<number>;
  tests_version: Generated<number>;
  vulnerabilities_version: Generated<number>;
  /** (migration 0010) the number of the organization's last event: taken under the row's lock, so numbers grow in commit order */
  event_seq: Generated<number>;
  created_at: Ms;
}

export interface CredentialsTable {
  id: string;
  organization_id: string;
  name: string;
  client_id: string;
  secret_hash: string;
  access_level: string;
  region: string;
  created_at: Ms;
  access_level_changed_at: Ms;
  revoked_at: Ms | null;
  last_used_at: Ms | null;
}

export interface AccessTokensTable {
  id: string;
  token_hash: string;
  credential_id: string;
  organization_id: string;
  access_level: string;
  scopes: string;
  region: string;
  issued_at: Ms;
  expires_at: Ms;
}

export interface EntitiesTable {
  id: string;
  organization_id: string;
  name: string;
}

export interface PeopleTable {
  id: string;
  organization_id: string;
  name: string;
  email: string;
}

export interface FrameworksTable {
  id: string;
  organization_id: string;
  name: string;
  next_audit_date: Ms | null;
  tsc_selections: string;
  added_by: string | null;
  added_on: Ms;
  last_modified_by: string | null;
  modified_on: Ms | null;
}

export interface RequirementsTable {
  id: string;
  organization_id: string;
  framework_id: string;
  code: string;
  name: string;
  /** (migration 0017) the requirement's place in its framework, as a program document or catalog gives it; 0 for older rows */
  position: Generated<number>;
}

export interface ControlsTable {
  id: string;
  organization_id: string;
  code: string;
  name: string;
  description: string | null;
  domain: string;
  function_grouping: string;
  scope: string;
  out_of_scope_reason: string | null;
  marked_out_of_scope_by: string | null;
  questions: string;
  added_by: string | null;
  added_on: Ms;
  last_modified_by: string | null;
  modified_on: Ms | null;
}

export interface ControlRequirementsTable {
  organization_id: string;
  control_id: string;
  requirement_id: string;
}

export interface ControlArtifactsTable {
  organization_id: string;
  control_id: string;
  artifact_type: ArtifactType;
  artifact_id: string;
}

export interface ArtifactRequirementsTable {
  organization_id: string;
  artifact_type: ArtifactType;
  artifact_id: string;
  requirement_id: string;
}

export interface SubjectPeopleTable {
  organization_id: string;
  subject_type: SubjectType;
  subject_id: string;
  person_id: string;
  role: 'assignee' | 'approver';
  is_primary: Bool;
  position: number;
}

export interface SubjectEntitiesTable {
  organization_id: string;
  subject_type: SubjectType;
  subject_id: string;
  entity_id: string;
}

export interface PoliciesTable {
  id: string;
  organization_id: string;
  custom_id: string;
  name: string;
  status: string;
  department: string | null;
  is_relevant: Bool;
  not_relevant_reason: string | null;
  next_review_date: Ms | null;
  gap_status: string;
  ai_detected_gaps: string;
  policy_behavior: string | null;
  version_number: string | null;
  effort_estimate: string | null;
  recurrence: string | null;
  source: string | null;
  requirement_text: string | null;
  published_by: string | null;
  published_on: Ms | null;
  added_by: string | null;
  added_on: Ms;
  last_modified_by: string | null;
  modified_on: Ms | null;
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

export interface EvidenceTable {
  id: string;
  organization_id: string;
  name: string;
  status: string;
  department: string | null;
  is_relevant: Bool;
  not_relevant_reason: string | null;
  next_review_date: Ms | null;
  gap_status: string;
  gaps: string;
  recurrence: string | null;
  effort_estimate: string | null;
  source: string | null;
  collection_method: string | null;
  requirement_text: string | null;
  revision_requested_by: string | null;
  revision_requested_on: Ms | null;
  rejection_reason: string | null;
  added_by: string | null;
  added_on: Ms;
  last_modified_by: string | null;
  modified_on: Ms | null;
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
}

export interface TestHistoryTable {
  id: string;
  organization_id: string;
  test_id: string;
  scanned_on: Ms;
  status: string;
}

export interface RisksTable {
  id: string;
  organization_id: string;
  name: string;
}

export interface RiskLinksTable {
  organization_id: string;
  risk_id: string;
  subject_type: SubjectType;
  subject_id: string;
}

export interface TicketsTable {
  id: string;
  organization_id: string;
  subject_type: SubjectType;
  subject_id: string;
  ticket_key: string;
  source: string;
  url: string;
}

export interface VulnerabilitiesTable {
  id: string;
  organization_id: string;
  source: string;
  finding_key: string;
  title: string;
  status: string;
  severity: string;
  cve_id: string;
  fix_available: string | null;
  description: string | null;
  remediation: string | null;
  steps_to_reproduce: string | null;
  first_seen: Ms;
  last_scanned_on: Ms | null;
  cvss_score: number | null;
  sla: number | null;
  report_link: string | null;
  added_by: string | null;
  added_on: Ms;
  last_modified_by: string | null;
  modified_on: Ms | null;
  /**
   * What a list page shows of the finding's children, kept by triggers (migration 0012; 0020 on
   * PostgreSQL). Not written by the API's types: a PostgreSQL import inserts resources_count with
   * its resources in one statement, and the triggers correct any value their children disagree with.
   */
  assignees_json: ColumnType<string | null, never, never>;
  custom_values_json: ColumnType<string | null, never, never>;
  resources_count: ColumnType<number | string, never, never>;
  /** What scanner imports keep (migration 0015): NULL on findings no import wrote. */
  import_scope: ColumnType<string | null, string | null | undefined, string | null>;
  import_status: ColumnType<string | null, string | null | undefined, string | null>;
  import_digest: ColumnType<string | null, string | null | undefined, string | null>;
  import_justification: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface VulnerabilityResourcesTable {
  id: string;
  organization_id: string;
  vulnerability_id: string;
  name: string;
  type: string;
  tags: string;
  first_seen: Ms;
  status: string;
}

/** Findings per (organization, status, severity, source, fix_available or ''), kept by triggers (migration 0008). */
export interface VulnerabilityCountsTable {
  organization_id: string;
  status: string;
  severity: string;
  source: string;
  fix_available: string;
  /** bigint: PostgreSQL returns it as a string */
  n: number | string;
}

export interface CustomFieldsTable {
  id: string;
  organization_id: string;
  resource_type: string;
  title: string;
  field_type: string;
  options: string;
  position: number;
}

export interface CustomFieldValuesTable {
  organization_id: string;
  custom_field_id: string;
  subject_id: string;
  value: string;
}

/** (migration 0017) the key a program document named a record by: kind is the program kind's record name (framework, requirement, control…) */
export interface ProgramKeysTable {
  organization_id: string;
  kind: string;
  key: string;
  record_id: string;
}

/** What the last program apply left per kind (migration 0019): its entries' digest and the data versions after it. */
export interface ProgramDigestsTable {
  organization_id: string;
  kind: string;
  digest: string;
  versions: string;
}

export interface IdempotencyRecordsTable {
  credential_id: string;
  idempotency_key: string;
  organization_id: string;
  fingerprint: string;
  state: 'in_progress' | 'completed';
  /** completed (migration 0006): what the write did */
  outcome: 'created' | 'updated' | 'accepted' | null;
  /** records completed before migration 0006 only: the status code answered (see repositories/idempotency.ts) */
  status_code: number | null;
  /** completed: the resource answered, as JSON */
  response_body: string | null;
  /** records completed before migration 0006 only: the headers answered, as JSON (unread) */
  response_headers: string | null;
  created_at: Ms;
  /** completed: end of the replay window; in progress: same as lease_until's outer bound */
  expires_at: Ms;
  /** random token of the request holding the claim */
  owner: string | null;
  /** an in-progress claim older than this was abandoned and may be taken over */
  lease_until: Ms | null;
  /** (migration 0009) the server instance holding the claim; abandoned when it has no fresh heartbeat */
  instance_id: string | null;
}

/** Uploads in flight (migration 0004): blobs under blob_prefix not yet recorded as attachments. */
export interface PendingUploadsTable {
  id: string;
  organization_id: string;
  evidence_id: string;
  blob_prefix: string;
  created_at: Ms;
  expires_at: Ms;
  /** (migration 0009) the server instance receiving the upload; abandoned when it has no fresh heartbeat */
  instance_id: string | null;
}

/** Running server processes (migration 0009): the liveness that claims and pending uploads follow. */
export interface ServerInstancesTable {
  id: string;
  host: string;
  pid: number;
  started_at: Ms;
  heartbeat_at: Ms;
}

/** Console administrators (migration 0005): one organization each; email unique per deployment. */
export interface AdminsTable {
  id: string;
  organization_id: string;
  email: string;
  password_hash: string;
  created_at: Ms;
  last_sign_in_at: Ms | null;
}

export interface AdminSessionsTable {
  id: string;
  token_hash: string;
  admin_id: string;
  organization_id: string;
  created_at: Ms;
  last_seen_at: Ms;
  expires_at: Ms;
  ip: string | null;
  user_agent: string | null;
}

export interface AuditLogTable {
  id: string;
  organization_id: string | null;
  at: Ms;
  actor_type: string;
  actor_id: string | null;
  actor_label: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  ip: string | null;
  user_agent: string | null;
}

/** Requests per credential and hour, summed over every node. */
export interface CredentialUsageTable {
  credential_id: string;
  bucket_start: Ms;
  organization_id: string;
  requests: number;
  rate_limited: number;
}

/** Change events (migration 0010): the transactional outbox and the events feed. */
export interface EventsTable {
  organization_id: string;
  /** the organization's event number, in commit order (see OrganizationsTable.event_seq) */
  seq: number;
  /** evt_…, time-sortable */
  id: string;
  type: string;
  resource_type: string;
  resource_id: string;
  occurred_at: Ms;
  /** JSON object */
  data: string;
}

export interface WebhookEndpointsTable {
  id: string;
  organization_id: string;
  url: string;
  description: string;
  /** JSON array of event types; ["*"] is every type */
  event_types: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  /** start of the current run of failed attempts; null after a success */
  failing_since: Ms | null;
  created_at: Ms;
  updated_at: Ms;
}

export interface WebhookEndpointSecretsTable {
  id: string;
  endpoint_id: string;
  organization_id: string;
  /** the whsec_ secret, encrypted at rest */
  secret_ciphertext: string;
  created_at: Ms;
  /** null while current; after a rotation, the end of the overlap during which it still signs */
  expires_at: Ms | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  organization_id: string;
  endpoint_id: string;
  /** the webhook-id header */
  event_id: string;
  event_type: string;
  /** the request body of a `webhook.test` delivery; null for an event stored in `events`, whose body is built from it at each attempt */
  payload: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: Ms;
  lease_owner: string | null;
  lease_until: Ms | null;
  last_attempt_at: Ms | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  created_at: Ms;
}

export interface WebhookDeliveryAttemptsTable {
  delivery_id: string;
  attempt: number;
  organization_id: string;
  at: Ms;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  /** the first 1 KB of the response body */
  response_body: string | null;
}

/** Bulk work run by a JobWorker (migration 0021). */
export interface JobsTable {
  id: string;
  organization_id: string;
  kind: 'vulnerabilities.import';
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  /** JSON */
  input: string;
  /** JSON of the synchronous door's answer */
  result: string | null;
  /** JSON of the synchronous door's error body (code, message, details) */
  error: string | null;
  credential_id: string;
  created_at: Ms;
  started_at: Ms | null;
  finished_at: Ms | null;
  lease_owner: string | null;
  lease_until: Ms | null;
  attempts: Generated<number>;
}

export interface Database {
  organizations: OrganizationsTable;
  credentials: CredentialsTable;
  access_tokens: AccessTokensTable;
  entities: EntitiesTable;
  people: PeopleTable;
  frameworks: FrameworksTable;
  requirements: RequirementsTable;
  controls: ControlsTable;
  control_requirements: ControlRequirementsTable;
  control_artifacts: ControlArtifactsTable;
  artifact_requirements: ArtifactRequirementsTable;
  subject_people: SubjectPeopleTable;
  subject_entities: SubjectEntitiesTable;
  policies: PoliciesTable;
  policy_documents: PolicyDocumentsTable;
  policy_versions: PolicyVersionsTable;
  evidence: EvidenceTable;
  attachments: AttachmentsTable;
  evidence_tests: EvidenceTestsTable;
  applications: ApplicationsTable;
  tests: TestsTable;
  test_applications: TestApplicationsTable;
  test_resources: TestResourcesTable;
  test_history: TestHistoryTable;
  risks: RisksTable;
  risk_links: RiskLinksTable;
  tickets: TicketsTable;
  vulnerabilities: VulnerabilitiesTable;
  vulnerability_resources: VulnerabilityResourcesTable;
  vulnerability_counts: VulnerabilityCountsTable;
  custom_fields: CustomFieldsTable;
  custom_field_values: CustomFieldValuesTable;
  idempotency_records: IdempotencyRecordsTable;
  pending_uploads: PendingUploadsTable;
  server_instances: ServerInstancesTable;
  admins: AdminsTable;
  admin_sessions: AdminSessionsTable;
  audit_log: AuditLogTable;
  credential_usage: CredentialUsageTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_endpoint_secrets: WebhookEndpointSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  program_keys: ProgramKeysTable;
  program_digests: ProgramDigestsTable;
  jobs: JobsTable;
}
