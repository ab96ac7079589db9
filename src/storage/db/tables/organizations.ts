// Organizations, the credentials that act for them, their tokens and usage. Row types as Kysely sees them (see ../schema.ts for the conventions).
import type { Generated } from 'kysely';
import type { Ms } from './columns.ts';

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

/** Requests per credential and hour, summed over every node. */
export interface CredentialUsageTable {
  credential_id: string;
  bucket_start: Ms;
  organization_id: string;
  requests: number;
  rate_limited: number;
}
