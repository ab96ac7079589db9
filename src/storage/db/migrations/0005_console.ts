// The developer console: administrators, their sessions, the audit log of admin actions, and the
// hourly request counts per credential that the usage page draws.
//
// admins.email is unique across the deployment: an administrator account belongs to exactly one
// organization, so signing in needs only email and password. Passwords are stored as scrypt
// hashes (src/domain/console/passwords.ts), session tokens as SHA-256 hashes.
//
// audit_log.organization_id is nullable only in principle (every action recorded today names an
// organization); entries are never updated or deleted by the service.
//
// credential_usage holds one row per credential and hour; nodes add their counts with an upsert,
// so several nodes sum into the same row.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('admins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'bigint')
    .execute();

  await db.schema
    .createTable('admin_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('admin_id', 'text', (c) => c.notNull().references('admins.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('admin_sessions_expires_at_idx').on('admin_sessions').column('expires_at').execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_label', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('target_label', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('audit_log_organization_id_at_idx').on('audit_log').columns(['organization_id', 'at', 'id']).execute();

  await db.schema
    .createTable('credential_usage')
    .addColumn('credential_id', 'text', (c) => c.notNull().references('credentials.id').onDelete('cascade'))
    .addColumn('bucket_start', 'bigint', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addColumn('rate_limited', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('credential_usage_pk', ['credential_id', 'bucket_start'])
    .execute();
  await db.schema
    .createIndex('credential_usage_organization_id_bucket_start_idx')
    .on('credential_usage')
    .columns(['organization_id', 'bucket_start'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('credential_usage').ifExists().execute();
  await db.schema.dropTable('audit_log').ifExists().execute();
  await db.schema.dropTable('admin_sessions').ifExists().execute();
  await db.schema.dropTable('admins').ifExists().execute();
}
