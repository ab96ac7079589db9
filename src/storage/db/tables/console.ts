// The console: administrators, their sessions and the audit log. Row types as Kysely sees them (see ../schema.ts for the conventions).
import type { Ms } from './columns.ts';

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
