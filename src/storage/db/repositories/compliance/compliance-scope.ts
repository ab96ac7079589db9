// The reads behind the computed change events (src/domain/events/compliance-changes.ts): the part
// of an organization's compliance graph one artifact's change can reach — the controls linked to
// the artifact, the frameworks of those controls and of the artifact, and the controls and
// artifacts of those frameworks — instead of the whole organization the controls snapshot loads.
// Lists of IDs are sent in chunks (id-chunks.ts), so no statement exceeds either engine's limit on parameters.
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.ts';
import { chunked } from '../../id-chunks.ts';
import type { ArtifactType } from '../../schema.ts';

type Q = Kysely<Database>;

/** The controls the artifacts of one type are linked to, and the frameworks they are mapped to through their requirements (the union over the artifacts). */
export async function findArtifactsReach(
  db: Q,
  organizationId: string,
  type: ArtifactType,
  ids: readonly string[],
): Promise<{ controlIds: string[]; frameworkIds: string[] }> {
  const [controls, frameworks] = await Promise.all([
    chunked(ids, (chunk) =>
      db
        .selectFrom('control_artifacts')
        .select('control_id')
        .distinct()
        .where('organization_id', '=', organizationId)
        .where('artifact_type', '=', type)
        .where('artifact_id', 'in', chunk)
        .execute(),
    ),
    chunked(ids, (chunk) =>
      db
        .selectFrom('artifact_requirements as ar')
        .innerJoin('requirements as r', 'r.id', 'ar.requirement_id')
        .select('r.framework_id')
        .distinct()
        .where('ar.organization_id', '=', organizationId)
        .where('ar.artifact_type', '=', type)
        .where('ar.artifact_id', 'in', chunk)
        .execute(),
    ),
  ]);
  return {
    controlIds: [...new Set(controls.map((r) => r.control_id))],
    frameworkIds: [...new Set(frameworks.map((r) => r.framework_id))],
  };
}

/** findArtifactsReach of one artifact. */
export const findArtifactReach = (db: Q, organizationId: string, type: ArtifactType, id: string) =>
  findArtifactsReach(db, organizationId, type, [id]);

/** (control, framework) pairs of the given controls, and of every control mapped to one of the given frameworks. */
export async function loadControlFrameworkPairs(
  db: Q,
  organizationId: string,
  controlIds: readonly string[],
  frameworkIds: readonly string[],
): Promise<Array<{ controlId: string; frameworkId: string }>> {
  const base = () =>
    db
      .selectFrom('control_requirements as cr')
      .innerJoin('requirements as r', 'r.id', 'cr.requirement_id')
      .select(['cr.control_id', 'r.framework_id'])
      .distinct()
      .where('cr.organization_id', '=', organizationId);
  const rows = [
    ...(await chunked(controlIds, (chunk) => base().where('cr.control_id', 'in', chunk).execute())),
    ...(await chunked(frameworkIds, (chunk) => base().where('r.framework_id', 'in', chunk).execute())),
  ];
  return rows.map((r) => ({ controlId: r.control_id, frameworkId: r.framework_id }));
}

/** The artifacts linked to each of the given controls, and each control's scope. */
export async function loadControlsArtifacts(
  db: Q,
  organizationId: string,
  controlIds: readonly string[],
): Promise<{ artifacts: Array<{ controlId: string; type: ArtifactType; id: string }>; outOfScope: Set<string> }> {
  const links = await chunked(controlIds, (chunk) =>
    db
      .selectFrom('control_artifacts')
      .select(['control_id', 'artifact_type', 'artifact_id'])
      .where('organization_id', '=', organizationId)
      .where('control_id', 'in', chunk)
      .execute(),
  );
  const outOfScope = await chunked(controlIds, (chunk) =>
    db
      .selectFrom('controls')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', chunk)
      .where('scope', '=', 'out_of_scope')
      .execute(),
  );
  return {
    artifacts: links.map((l) => ({ controlId: l.control_id, type: l.artifact_type, id: l.artifact_id })),
    outOfScope: new Set(outOfScope.map((r) => r.id)),
  };
}

/** The artifacts mapped (through their requirements) to each of the given frameworks. */
export async function loadFrameworkArtifactPairs(
  db: Q,
  organizationId: string,
  frameworkIds: readonly string[],
): Promise<Array<{ frameworkId: string; type: ArtifactType; id: string }>> {
  const rows = await chunked(frameworkIds, (chunk) =>
    db
      .selectFrom('artifact_requirements as ar')
      .innerJoin('requirements as r', 'r.id', 'ar.requirement_id')
      .select(['r.framework_id', 'ar.artifact_type', 'ar.artifact_id'])
      .distinct()
      .where('ar.organization_id', '=', organizationId)
      .where('r.framework_id', 'in', chunk)
      .execute(),
  );
  return rows.map((r) => ({ frameworkId: r.framework_id, type: r.artifact_type, id: r.artifact_id }));
}

/** The stored columns the rule derives each given artifact's state from. */
export async function loadArtifactColumns(
  db: Q,
  organizationId: string,
  ids: { policy: readonly string[]; evidence: readonly string[]; test: readonly string[] },
): Promise<{
  policies: Array<{ id: string; isRelevant: boolean; status: string }>;
  evidence: Array<{ id: string; isRelevant: boolean; status: string }>;
  tests: Array<{ id: string; result: string; integrationFailing: boolean }>;
}> {
  const statusOf = (table: 'policies' | 'evidence', list: readonly string[]) =>
    chunked(list, (chunk) =>
      db
        .selectFrom(table)
        .select(['id', 'is_relevant', 'status'])
        .where('organization_id', '=', organizationId)
        .where('id', 'in', chunk)
        .execute(),
    );
  const [policies, evidence, tests] = await Promise.all([
    statusOf('policies', ids.policy),
    statusOf('evidence', ids.evidence),
    chunked(ids.test, (chunk) =>
      db
        .selectFrom('tests')
        .select(['id', 'result', 'integration_failing'])
        .where('organization_id', '=', organizationId)
        .where('id', 'in', chunk)
        .execute(),
    ),
  ]);
  return {
    policies: policies.map((r) => ({ id: r.id, isRelevant: Boolean(r.is_relevant), status: r.status })),
    evidence: evidence.map((r) => ({ id: r.id, isRelevant: Boolean(r.is_relevant), status: r.status })),
    tests: tests.map((r) => ({ id: r.id, result: r.result, integrationFailing: Boolean(r.integration_failing) })),
  };
}
