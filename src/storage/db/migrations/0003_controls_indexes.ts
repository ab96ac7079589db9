// Indexes that let GET /v1/controls (and GET /v1/frameworks) read an organization's compliance
// inputs from indexes alone, without visiting the tables. A cold controls list reads every
// control → artifact and control → framework link of the organization, every artifact's state
// and the artifacts mapped to the frameworks asked for (see repositories/compliance/compliance-inputs.ts); measured
// with bench/controls.ts at demo scale 20 (3,000 controls, 10,140 artifacts):
//   control_artifacts_cover_idx     (organization_id, control_id, artifact_type, artifact_id)
//       all of an organization's control → artifact links; also one control's artifacts
//   control_requirements_cover_idx  (organization_id, control_id, requirement_id)
//       all of an organization's control → requirement links; also one control's requirements
//   artifact_requirements_cover_idx (organization_id, requirement_id, artifact_type, artifact_id)
//       the artifacts mapped to the requirements of the frameworks asked for; it replaces the
//       0001 index on (organization_id, requirement_id), a prefix of it
//   policies_state_idx, evidence_state_idx (organization_id, is_relevant, status, id)
//   tests_state_idx                        (organization_id, result, integration_failing, id)
//       every artifact's state, read grouped by the columns the state depends on
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('control_artifacts_cover_idx')
    .on('control_artifacts')
    .columns(['organization_id', 'control_id', 'artifact_type', 'artifact_id'])
    .execute();
  await db.schema
    .createIndex('control_requirements_cover_idx')
    .on('control_requirements')
    .columns(['organization_id', 'control_id', 'requirement_id'])
    .execute();
  await db.schema
    .createIndex('artifact_requirements_cover_idx')
    .on('artifact_requirements')
    .columns(['organization_id', 'requirement_id', 'artifact_type', 'artifact_id'])
    .execute();
  await db.schema.dropIndex('artifact_requirements_organization_id_requirement_id_idx').ifExists().execute();
  await db.schema.createIndex('policies_state_idx').on('policies').columns(['organization_id', 'is_relevant', 'status', 'id']).execute();
  await db.schema.createIndex('evidence_state_idx').on('evidence').columns(['organization_id', 'is_relevant', 'status', 'id']).execute();
  await db.schema.createIndex('tests_state_idx').on('tests').columns(['organization_id', 'result', 'integration_failing', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [
    'tests_state_idx',
    'evidence_state_idx',
    'policies_state_idx',
    'artifact_requirements_cover_idx',
    'control_requirements_cover_idx',
    'control_artifacts_cover_idx',
  ]) {
    await db.schema.dropIndex(name).ifExists().execute();
  }
  await db.schema
    .createIndex('artifact_requirements_organization_id_requirement_id_idx')
    .on('artifact_requirements')
    .columns(['organization_id', 'requirement_id'])
    .execute();
}
