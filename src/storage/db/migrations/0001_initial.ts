// The whole data model of the spec in one migration, written with Kysely's schema builder so the
// same file creates it on SQLite and PostgreSQL. Column types are the portable subset: text,
// bigint (epoch ms), integer, boolean, double precision.
import type { Kysely, CreateTableBuilder } from 'kysely';

type Table = CreateTableBuilder<string, never>;

const ORG = 'organization_id';

/** A table owned by an organization: text primary key `id` plus `organization_id`. */
function owned(db: Kysely<any>, name: string): Table {
  return db.schema
    .createTable(name)
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn(ORG, 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'));
}

/** A link table: `organization_id` plus the given columns, all part of the primary key. */
function link(db: Kysely<any>, name: string, columns: string[]): Table {
  let t = db.schema.createTable(name).addColumn(ORG, 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'));
  for (const column of columns) t = t.addColumn(column, 'text', (c) => c.notNull());
  return t.addPrimaryKeyConstraint(`${name}_pk`, columns as never[]);
}

/** Who added and last changed a record, and when (people IDs, epoch ms). */
function stamped(t: Table): Table {
  return t
    .addColumn('added_by', 'text')
    .addColumn('added_on', 'bigint', (c) => c.notNull())
    .addColumn('last_modified_by', 'text')
    .addColumn('modified_on', 'bigint');
}

/** The review state policies and evidence records share (their status, relevance and gaps). */
function reviewed(t: Table): Table {
  return t
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('department', 'text')
    .addColumn('is_relevant', 'boolean', (c) => c.notNull())
    .addColumn('not_relevant_reason', 'text')
    .addColumn('next_review_date', 'bigint')
    .addColumn('gap_status', 'text', (c) => c.notNull());
}

/** Who added and last updated a document or attachment, and when (people IDs, epoch ms). */
function updated(t: Table): Table {
  return t
    .addColumn('added_by', 'text')
    .addColumn('added_on', 'bigint', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    .addColumn('updated_on', 'bigint');
}

async function index(db: Kysely<any>, table: string, columns: string[], unique = false) {
  let builder = db.schema
    .createIndex(`${table}_${columns.join('_')}_idx`)
    .on(table)
    .columns(columns);
  if (unique) builder = builder.unique();
  await builder.execute();
}

/** In this order: each table is created after the tables it references. */
export async function up(db: Kysely<any>): Promise<void> {
  await createAccountTables(db);
  await createGraphTables(db);
  await createPolicyTables(db);
  await createEvidenceTables(db);
  await createTestTables(db);
  await createRiskAndTicketTables(db);
  await createVulnerabilityTables(db);
  await createCustomFieldTables(db);
  await createIdempotencyTable(db);
}

/** The organizations, their credentials and the tokens issued to them. */
async function createAccountTables(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('data_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await owned(db, 'credentials')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('access_level', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('access_level_changed_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await index(db, 'credentials', [ORG]);

  await owned(db, 'access_tokens')
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('credential_id', 'text', (c) => c.notNull().references('credentials.id').onDelete('cascade'))
    .addColumn('access_level', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('issued_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await index(db, 'access_tokens', ['credential_id']);
  await index(db, 'access_tokens', ['expires_at']);
}

/** Who and what records hang from, the frameworks, requirements and controls, and the links between them. */
async function createGraphTables(db: Kysely<any>): Promise<void> {
  await owned(db, 'entities')
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'entities', [ORG]);

  await owned(db, 'people')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'people', [ORG, 'email'], true);

  await stamped(
    owned(db, 'frameworks')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('next_audit_date', 'bigint')
      .addColumn('tsc_selections', 'text', (c) => c.notNull().defaultTo('[]')),
  ).execute();
  await index(db, 'frameworks', [ORG]);

  await owned(db, 'requirements')
    .addColumn('framework_id', 'text', (c) => c.notNull().references('frameworks.id').onDelete('cascade'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'requirements', [ORG, 'framework_id']);

  await stamped(
    owned(db, 'controls')
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('domain', 'text', (c) => c.notNull())
      .addColumn('function_grouping', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('out_of_scope_reason', 'text')
      .addColumn('marked_out_of_scope_by', 'text')
      .addColumn('questions', 'text', (c) => c.notNull().defaultTo('[]')),
  ).execute();
  await index(db, 'controls', [ORG]);

  await link(db, 'control_requirements', ['control_id', 'requirement_id']).execute();
  await index(db, 'control_requirements', [ORG, 'requirement_id']);
  await link(db, 'control_artifacts', ['control_id', 'artifact_type', 'artifact_id']).execute();
  await index(db, 'control_artifacts', [ORG, 'artifact_type', 'artifact_id']);
  await link(db, 'artifact_requirements', ['artifact_type', 'artifact_id', 'requirement_id']).execute();
  await index(db, 'artifact_requirements', [ORG, 'requirement_id']);

  await link(db, 'subject_people', ['subject_type', 'subject_id', 'role', 'person_id'])
    .addColumn('is_primary', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await index(db, 'subject_people', [ORG, 'subject_type', 'person_id']);
  await link(db, 'subject_entities', ['subject_type', 'subject_id', 'entity_id']).execute();
  await index(db, 'subject_entities', [ORG, 'subject_type', 'entity_id']);
}

/** Policies, their documents and versions. */
async function createPolicyTables(db: Kysely<any>): Promise<void> {
  await stamped(
    reviewed(owned(db, 'policies').addColumn('custom_id', 'text', (c) => c.notNull()))
      .addColumn('ai_detected_gaps', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('policy_behavior', 'text')
      .addColumn('version_number', 'text')
      .addColumn('effort_estimate', 'text')
      .addColumn('recurrence', 'text')
      .addColumn('source', 'text')
      .addColumn('requirement_text', 'text')
      .addColumn('published_by', 'text')
      .addColumn('published_on', 'bigint'),
  ).execute();
  await index(db, 'policies', [ORG]);

  await updated(
    owned(db, 'policy_documents')
      .addColumn('policy_id', 'text', (c) => c.notNull().references('policies.id').onDelete('cascade'))
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('url', 'text')
      .addColumn('note', 'text'),
  ).execute();
  await index(db, 'policy_documents', ['policy_id']);

  await owned(db, 'policy_versions')
    .addColumn('policy_id', 'text', (c) => c.notNull().references('policies.id').onDelete('cascade'))
    .addColumn('version_name', 'text', (c) => c.notNull())
    .addColumn('published_by', 'text')
    .addColumn('published_on', 'bigint', (c) => c.notNull())
    .execute();
  await index(db, 'policy_versions', ['policy_id']);
}

/** Evidence records and their attachments. */
async function createEvidenceTables(db: Kysely<any>): Promise<void> {
  await stamped(
    reviewed(owned(db, 'evidence'))
      .addColumn('gaps', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('recurrence', 'text')
      .addColumn('effort_estimate', 'text')
      .addColumn('source', 'text')
      .addColumn('collection_method', 'text')
      .addColumn('requirement_text', 'text')
      .addColumn('revision_requested_by', 'text')
      .addColumn('revision_requested_on', 'bigint')
      .addColumn('rejection_reason', 'text'),
  ).execute();
  await index(db, 'evidence', [ORG]);

  await updated(
    owned(db, 'attachments')
      .addColumn('evidence_id', 'text', (c) => c.notNull().references('evidence.id').onDelete('cascade'))
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('url', 'text')
      .addColumn('note', 'text')
      .addColumn('blob_key', 'text')
      .addColumn('size_bytes', 'bigint')
      .addColumn('sha256', 'text')
      .addColumn('upload_id', 'text')
      .addColumn('evidence_date', 'bigint', (c) => c.notNull())
      .addColumn('period_start', 'bigint')
      .addColumn('period_end', 'bigint'),
  ).execute();
  await index(db, 'attachments', ['evidence_id']);
}

/** Tests, the applications and resources they cover, and their history. */
async function createTestTables(db: Kysely<any>): Promise<void> {
  await owned(db, 'applications')
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'applications', [ORG, 'name']);

  await owned(db, 'tests')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('integration_failing', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('description', 'text')
    .addColumn('remediation', 'text')
    .addColumn('notes', 'text')
    .addColumn('effort_estimate', 'text')
    .addColumn('ignore_reason', 'text')
    .addColumn('last_scanned_on', 'bigint')
    .addColumn('added_on', 'bigint', (c) => c.notNull())
    .addColumn('modified_on', 'bigint')
    .execute();
  await index(db, 'tests', [ORG]);

  await link(db, 'evidence_tests', ['evidence_id', 'test_id']).execute();
  await link(db, 'test_applications', ['test_id', 'application_id']).execute();
  await index(db, 'test_applications', [ORG, 'application_id']);

  await owned(db, 'test_resources')
    .addColumn('test_id', 'text', (c) => c.notNull().references('tests.id').onDelete('cascade'))
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('last_scanned_at', 'bigint')
    .addColumn('first_detected', 'bigint')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('region', 'text')
    .addColumn('service', 'text')
    .addColumn('account_id', 'text')
    .addColumn('environment', 'text')
    .addColumn('link', 'text')
    .addColumn('description', 'text')
    .execute();
  await index(db, 'test_resources', ['test_id', 'status']);

  await owned(db, 'test_history')
    .addColumn('test_id', 'text', (c) => c.notNull().references('tests.id').onDelete('cascade'))
    .addColumn('scanned_on', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'test_history', ['test_id', 'scanned_on']);
}

/** Risks and tickets linked to records. */
async function createRiskAndTicketTables(db: Kysely<any>): Promise<void> {
  await owned(db, 'risks')
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();
  await link(db, 'risk_links', ['subject_type', 'subject_id', 'risk_id']).execute();

  await owned(db, 'tickets')
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('ticket_key', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'tickets', [ORG, 'subject_type', 'subject_id']);
}

/** Vulnerability findings and the resources they affect. */
async function createVulnerabilityTables(db: Kysely<any>): Promise<void> {
  await stamped(
    owned(db, 'vulnerabilities')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('finding_key', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('severity', 'text', (c) => c.notNull())
      .addColumn('cve_id', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('fix_available', 'text')
      .addColumn('description', 'text')
      .addColumn('remediation', 'text')
      .addColumn('steps_to_reproduce', 'text')
      .addColumn('first_seen', 'bigint', (c) => c.notNull())
      .addColumn('last_scanned_on', 'bigint')
      .addColumn('cvss_score', 'double precision')
      .addColumn('sla', 'integer')
      .addColumn('report_link', 'text'),
  ).execute();
  await index(db, 'vulnerabilities', [ORG, 'source', 'finding_key'], true);
  // Serves the list's order (firstSeen descending, then ID) for keyset pages.
  await index(db, 'vulnerabilities', [ORG, 'first_seen', 'id']);

  await owned(db, 'vulnerability_resources')
    .addColumn('vulnerability_id', 'text', (c) => c.notNull().references('vulnerabilities.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'vulnerability_resources', ['vulnerability_id', 'status']);
}

/** Custom fields and their values. */
async function createCustomFieldTables(db: Kysely<any>): Promise<void> {
  await owned(db, 'custom_fields')
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('field_type', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await link(db, 'custom_field_values', ['custom_field_id', 'subject_id'])
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'custom_field_values', [ORG, 'subject_id']);
}

/** Idempotency records of writes, per credential and key. */
async function createIdempotencyTable(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_records')
    .addColumn('credential_id', 'text', (c) => c.notNull().references('credentials.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn(ORG, 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_headers', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_records_pk', ['credential_id', 'idempotency_key'])
    .execute();
  await index(db, 'idempotency_records', ['expires_at']);
}

export async function down(db: Kysely<any>): Promise<void> {
  const tables = [
    'idempotency_records',
    'custom_field_values',
    'custom_fields',
    'vulnerability_resources',
    'vulnerabilities',
    'tickets',
    'risk_links',
    'risks',
    'test_history',
    'test_resources',
    'test_applications',
    'evidence_tests',
    'tests',
    'applications',
    'attachments',
    'evidence',
    'policy_versions',
    'policy_documents',
    'policies',
    'subject_entities',
    'subject_people',
    'artifact_requirements',
    'control_artifacts',
    'control_requirements',
    'controls',
    'requirements',
    'frameworks',
    'people',
    'entities',
    'access_tokens',
    'credentials',
    'organizations',
  ];
  for (const table of tables) await db.schema.dropTable(table).ifExists().execute();
}
