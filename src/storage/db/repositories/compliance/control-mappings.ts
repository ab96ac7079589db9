// A control's mappings as get-one shows them: its requirements and the artifacts mapped to it,
// with their frameworks and entities.
import type { Kysely } from 'kysely';
import type { ArtifactType, Database } from '../../schema.ts';
import { group, toMappedRequirement, type Entity, type MappedFramework, type MappedRequirement } from '../links.ts';
import { chunked } from '../../id-chunks.ts';
import { CONTROL_CHUNK } from './controls.ts';
import { artifactKeyOf } from './compliance-inputs.ts';

type Q = Kysely<Database>;

/** The artifact key of a mapping row, as the compliance rule spells it. */
const byArtifactKey = (r: { artifact_type: ArtifactType; artifact_id: string }): string => artifactKeyOf(r.artifact_type, r.artifact_id);

/** The read of one control made from the read of many. */
const ofOneControl =
  <R>(many: (db: Q, organizationId: string, controlIds: readonly string[]) => Promise<Map<string, R[]>>) =>
  async (db: Q, organizationId: string, controlId: string): Promise<R[]> =>
    (await many(db, organizationId, [controlId])).get(controlId) ?? [];

/** A requirement a control is mapped to: the read API's shape (src/shared/sub-objects.ts). */
export type ControlRequirementRow = MappedRequirement;

/** The requirements of many controls, by control (500 controls a statement). */
export async function listControlsRequirements(
  db: Q,
  organizationId: string,
  controlIds: readonly string[],
): Promise<Map<string, ControlRequirementRow[]>> {
  const rows = await chunked(controlIds, (chunk) =>
    db
      .selectFrom('control_requirements as cr')
      .innerJoin('requirements as r', 'r.id', 'cr.requirement_id')
      .innerJoin('frameworks as f', 'f.id', 'r.framework_id')
      .select(['cr.control_id', 'f.id as framework_id', 'f.name as framework_name', 'r.id as requirement_id', 'r.code', 'r.name'])
      .where('cr.organization_id', '=', organizationId)
      .where('cr.control_id', 'in', chunk)
      .execute(),
  );
  return group(rows, (r) => r.control_id, toMappedRequirement);
}

/** The requirements a control is mapped to (unordered: the caller sorts them). */
export const listControlRequirements = ofOneControl(listControlsRequirements);

/** An artifact mapped to a control, with what its status, relevance and justification come from. */
export interface ControlArtifactRow {
  type: ArtifactType;
  id: string;
  name: string;
  /** policies and evidence: their status; tests: the stored result (the public status is computed) */
  status: string;
  /** policies and evidence */
  isRelevant: boolean;
  /** policies and evidence: notRelevantReason; tests: ignoreReason */
  reason: string | null;
  /** tests: 'automated' or 'cloud' */
  kind: string | null;
  integrationFailing: boolean;
}

/**
 * The artifacts of many controls, by control: three statements per 500 controls. Each read starts
 * at the control's mapping rows (control_artifacts_cover_idx) and looks the artifact up by its key,
 * so it costs what the control has mapped, never a walk of the organization's artifacts (which
 * SQLite chose for an `id in (subquery)` form with no statistics).
 */
export async function listControlsArtifacts(
  db: Q,
  organizationId: string,
  controlIds: readonly string[],
): Promise<Map<string, ControlArtifactRow[]>> {
  const org = organizationId;
  const rows: Array<{ controlId: string; artifact: ControlArtifactRow }> = [];
  /** a policy or evidence record: status and relevance are its own */
  const reviewed =
    (type: 'policy' | 'evidence') =>
    (a: { control_id: string; id: string; name: string; status: string; is_relevant: unknown; not_relevant_reason: string | null }) => ({
      controlId: a.control_id,
      artifact: {
        type,
        id: a.id,
        name: a.name,
        status: a.status,
        isRelevant: Boolean(a.is_relevant),
        reason: a.not_relevant_reason,
        kind: null,
        integrationFailing: false,
      },
    });
  for (let i = 0; i < controlIds.length; i += CONTROL_CHUNK) {
    const ids = controlIds.slice(i, i + CONTROL_CHUNK);
    const mappings = (type: ArtifactType) =>
      db
        .selectFrom('control_artifacts as ca')
        .where('ca.organization_id', '=', org)
        .where('ca.control_id', 'in', ids)
        .where('ca.artifact_type', '=', type);
    const [policies, evidence, tests] = await Promise.all([
      mappings('policy')
        .innerJoin('policies as a', (j) => j.onRef('a.id', '=', 'ca.artifact_id').onRef('a.organization_id', '=', 'ca.organization_id'))
        .select(['ca.control_id', 'a.id', 'a.name', 'a.status', 'a.is_relevant', 'a.not_relevant_reason'])
        .execute(),
      mappings('evidence')
        .innerJoin('evidence as a', (j) => j.onRef('a.id', '=', 'ca.artifact_id').onRef('a.organization_id', '=', 'ca.organization_id'))
        .select(['ca.control_id', 'a.id', 'a.name', 'a.status', 'a.is_relevant', 'a.not_relevant_reason'])
        .execute(),
      mappings('test')
        .innerJoin('tests as a', (j) => j.onRef('a.id', '=', 'ca.artifact_id').onRef('a.organization_id', '=', 'ca.organization_id'))
        .select(['ca.control_id', 'a.id', 'a.name', 'a.kind', 'a.result', 'a.integration_failing', 'a.ignore_reason'])
        .execute(),
    ]);
    rows.push(...policies.map(reviewed('policy')), ...evidence.map(reviewed('evidence')));
    for (const t of tests)
      rows.push({
        controlId: t.control_id,
        artifact: {
          type: 'test',
          id: t.id,
          name: t.name,
          status: t.result,
          isRelevant: true,
          reason: t.ignore_reason,
          kind: t.kind,
          integrationFailing: Boolean(t.integration_failing),
        },
      });
  }
  return group(
    rows,
    (r) => r.controlId,
    (r) => r.artifact,
  );
}

/** Every policy, evidence record and test (automated and cloud) mapped to the control: three statements. */
export const listControlArtifacts = ofOneControl(listControlsArtifacts);

/** The frameworks each artifact mapped to the control is mapped to, ordered by framework name then ID. */
export async function loadControlArtifactFrameworks(
  db: Q,
  organizationId: string,
  controlId: string,
): Promise<Map<string, MappedFramework[]>> {
  const rows = await db
    .selectFrom('control_artifacts as ca')
    .innerJoin('artifact_requirements as ar', (join) =>
      join
        .onRef('ar.artifact_type', '=', 'ca.artifact_type')
        .onRef('ar.artifact_id', '=', 'ca.artifact_id')
        .onRef('ar.organization_id', '=', 'ca.organization_id'),
    )
    .innerJoin('requirements as r', 'r.id', 'ar.requirement_id')
    .innerJoin('frameworks as f', 'f.id', 'r.framework_id')
    .select(['ca.artifact_type', 'ca.artifact_id', 'f.id', 'f.name'])
    .distinct()
    .where('ca.organization_id', '=', organizationId)
    .where('ca.control_id', '=', controlId)
    .orderBy('f.name')
    .orderBy('f.id')
    .execute();
  return group(rows, byArtifactKey, (r) => ({ frameworkId: r.id, frameworkName: r.name }));
}

/** The entities of each artifact mapped to the control, ordered by entity name then ID. */
export async function loadControlArtifactEntities(db: Q, organizationId: string, controlId: string): Promise<Map<string, Entity[]>> {
  const rows = await db
    .selectFrom('control_artifacts as ca')
    .innerJoin('subject_entities as se', (join) =>
      join
        .onRef('se.subject_type', '=', 'ca.artifact_type')
        .onRef('se.subject_id', '=', 'ca.artifact_id')
        .onRef('se.organization_id', '=', 'ca.organization_id'),
    )
    .innerJoin('entities as e', 'e.id', 'se.entity_id')
    .select(['ca.artifact_type', 'ca.artifact_id', 'e.id', 'e.name'])
    .where('ca.organization_id', '=', organizationId)
    .where('ca.control_id', '=', controlId)
    .orderBy('e.name')
    .orderBy('e.id')
    .execute();
  return group(rows, byArtifactKey, (r) => ({ entityId: r.id, entityName: r.name }));
}
