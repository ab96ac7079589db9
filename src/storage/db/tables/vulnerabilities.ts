// Vulnerability findings, their resources and the counts triggers keep. Row types as Kysely sees them (see ../schema.ts for the conventions).
import type { ColumnType } from 'kysely';
import type { Ms } from './columns.ts';

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
