// The compliance graph: frameworks, requirements, controls, the links between records and what hangs from them. Row types as Kysely sees them (see ../schema.ts for the conventions).
import type { Generated } from 'kysely';
import type { Bool, Ms, SubjectType, ArtifactType } from './columns.ts';

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
