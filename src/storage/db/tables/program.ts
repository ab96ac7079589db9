// Custom fields and what program documents leave behind. Row types as Kysely sees them (see ../schema.ts for the conventions).

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
