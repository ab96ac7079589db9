// Row types of every table, as Kysely sees them. Column names are snake_case in SQL; repositories
// convert rows to camelCase domain objects at their edge. Times are epoch milliseconds (bigint in
// PostgreSQL, INTEGER in SQLite); booleans are 0/1 in SQLite, so readers pass them through Boolean().
// JSON arrays (tags, gaps, questions…) are TEXT holding JSON in both engines: they are never filtered.
// The row types live in tables/, one file per subject; this file gathers them into the Database.
import type * as organizations from './tables/organizations.ts';
import type * as compliance from './tables/compliance.ts';
import type * as artifacts from './tables/artifacts.ts';
import type * as vulnerabilities from './tables/vulnerabilities.ts';
import type * as program from './tables/program.ts';
import type * as service from './tables/service.ts';
import type * as console from './tables/console.ts';
import type * as events from './tables/events.ts';

export type { ArtifactType, SubjectType } from './tables/columns.ts';
export type * from './tables/organizations.ts';
export type * from './tables/compliance.ts';
export type * from './tables/artifacts.ts';
export type * from './tables/vulnerabilities.ts';
export type * from './tables/program.ts';
export type * from './tables/service.ts';
export type * from './tables/console.ts';
export type * from './tables/events.ts';

export interface Database {
  organizations: organizations.OrganizationsTable;
  credentials: organizations.CredentialsTable;
  access_tokens: organizations.AccessTokensTable;
  entities: compliance.EntitiesTable;
  people: compliance.PeopleTable;
  frameworks: compliance.FrameworksTable;
  requirements: compliance.RequirementsTable;
  controls: compliance.ControlsTable;
  control_requirements: compliance.ControlRequirementsTable;
  control_artifacts: compliance.ControlArtifactsTable;
  artifact_requirements: compliance.ArtifactRequirementsTable;
  subject_people: compliance.SubjectPeopleTable;
  subject_entities: compliance.SubjectEntitiesTable;
  policies: artifacts.PoliciesTable;
  policy_documents: artifacts.PolicyDocumentsTable;
  policy_versions: artifacts.PolicyVersionsTable;
  evidence: artifacts.EvidenceTable;
  attachments: artifacts.AttachmentsTable;
  evidence_tests: artifacts.EvidenceTestsTable;
  applications: artifacts.ApplicationsTable;
  tests: artifacts.TestsTable;
  test_applications: artifacts.TestApplicationsTable;
  test_resources: artifacts.TestResourcesTable;
  test_history: artifacts.TestHistoryTable;
  test_result_imports: artifacts.TestResultImportsTable;
  risks: compliance.RisksTable;
  risk_links: compliance.RiskLinksTable;
  tickets: compliance.TicketsTable;
  vulnerabilities: vulnerabilities.VulnerabilitiesTable;
  vulnerability_resources: vulnerabilities.VulnerabilityResourcesTable;
  vulnerability_counts: vulnerabilities.VulnerabilityCountsTable;
  custom_fields: program.CustomFieldsTable;
  custom_field_values: program.CustomFieldValuesTable;
  idempotency_records: service.IdempotencyRecordsTable;
  pending_uploads: service.PendingUploadsTable;
  server_instances: service.ServerInstancesTable;
  admins: console.AdminsTable;
  admin_sessions: console.AdminSessionsTable;
  audit_log: console.AuditLogTable;
  credential_usage: organizations.CredentialUsageTable;
  events: events.EventsTable;
  webhook_endpoints: events.WebhookEndpointsTable;
  webhook_endpoint_secrets: events.WebhookEndpointSecretsTable;
  webhook_deliveries: events.WebhookDeliveriesTable;
  webhook_delivery_attempts: events.WebhookDeliveryAttemptsTable;
  program_keys: program.ProgramKeysTable;
  program_digests: program.ProgramDigestsTable;
  jobs: service.JobsTable;
}
