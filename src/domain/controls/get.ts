// One control, with its description, questions, mappings and
// authorship, its status over all its frameworks, and the expansions asked for: the status per
// framework (complianceOverview), the artifacts behind it (mappedArtifacts) and its risks.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../../storage/db/schema.ts';
import { authorize } from '../auth/scopes.ts';
import { notFound } from '../../shared/errors.ts';
import { cachedResult } from '../result-cache.ts';
import {
  artifactKey,
  controlCompliance,
  testState,
  testStatus,
  type ArtifactKey,
  type ArtifactState,
  type ArtifactType,
  type ComplianceGraph,
  type ControlNode,
} from '../compliance/rules.ts';
import { evidenceRowState, policyRowState } from '../compliance/graph.ts';
import { controlListItem } from './list.ts';
import type { ControlDetail, MappedArtifact } from './schema.ts';
import { setPresent } from '../set-present.ts';
import { byNameThenId } from './snapshot.ts';
import { findControl, findControls, loadPeopleByIds } from '../../storage/db/repositories/compliance/controls.ts';
import {
  loadControlArtifactEntities,
  loadControlArtifactFrameworks,
  listControlArtifacts,
  listControlRequirements,
  listControlsArtifacts,
  listControlsRequirements,
  type ControlArtifactRow,
} from '../../storage/db/repositories/compliance/control-mappings.ts';
import { loadRisks, loadSubjectEntities, loadSubjectPeople, type MappedFramework } from '../../storage/db/repositories/links.ts';

export const CONTROL_EXPANSIONS = ['complianceOverview', 'mappedArtifacts', 'mappedRisks'] as const;
export type ControlExpansion = (typeof CONTROL_EXPANSIONS)[number];

export interface GetControlInput {
  controlId: string;
  fields?: ControlExpansion[];
}

export async function getControl({ ctx, input }: { ctx: Context; input: GetControlInput }): Promise<ControlDetail> {
  authorize(ctx.actor, 'control', 'read');
  // The answer depends on the plan (mappedArtifacts), so the plan is part of the key. A plan change
  // also bumps every data version; keying by it keeps the cache correct without relying on that.
  const plan = [...ctx.actor.plan];
  return cachedResult(ctx, 'controls.get', { ...input, plan }, () =>
    buildControlDetail(ctx.db.kysely, ctx.actor.organizationId, ctx.actor.plan, input),
  );
}

const TYPE_ORDER: Record<ArtifactType, number> = { policy: 0, evidence: 1, test: 2 };

/** The public status and the rule's state of an artifact mapped to the control. */
function artifactView(a: ControlArtifactRow): { status: string; state: ArtifactState } {
  if (a.type === 'policy') return { status: a.status, state: policyRowState(a) };
  if (a.type === 'evidence') return { status: a.status, state: evidenceRowState(a) };
  const status = testStatus(a.status, a.integrationFailing);
  return { status, state: testState(status) };
}

/** Links of many controls read at once, keyed by control (people by person ID). */
export interface PreloadedControlLinks {
  assignees: Awaited<ReturnType<typeof loadSubjectPeople>>;
  entities: Awaited<ReturnType<typeof loadSubjectEntities>>;
  people: Awaited<ReturnType<typeof loadPeopleByIds>>;
  /** the controls' own rows, requirements and artifacts, when the caller read those too (`whole`) */
  rows?: Awaited<ReturnType<typeof findControls>>;
  requirements?: Awaited<ReturnType<typeof listControlsRequirements>>;
  artifacts?: Awaited<ReturnType<typeof listControlsArtifacts>>;
}

/**
 * The links `buildControlDetail` reads, for many controls in one read each (`personIds`: their
 * stamps' people). `whole`: also their rows, requirements and artifacts, so that building each
 * control's default shape reads nothing more (an apply's `control.created` events).
 */
export async function preloadControlLinks(
  db: Kysely<Database>,
  org: string,
  ids: string[],
  personIds: string[],
  whole = false,
): Promise<PreloadedControlLinks> {
  const [assignees, entities, people, rows, requirements, artifacts] = await Promise.all([
    loadSubjectPeople(db, org, 'control', 'assignee', ids),
    loadSubjectEntities(db, org, 'control', ids),
    loadPeopleByIds(db, org, personIds),
    whole ? findControls(db, org, ids) : undefined,
    whole ? listControlsRequirements(db, org, ids) : undefined,
    whole ? listControlsArtifacts(db, org, ids) : undefined,
  ]);
  return { assignees, entities, people, rows, requirements, artifacts };
}

/** The get shape of one control, read through `db` (a write's transaction reads its own change). */
export async function buildControlDetail(
  db: Kysely<Database>,
  org: string,
  plan: ReadonlySet<string>,
  input: GetControlInput,
  /** assignees, entities and stamping people already read for many controls at once (a bulk caller's) */
  preloaded?: PreloadedControlLinks,
): Promise<ControlDetail> {
  const row = preloaded?.rows ? preloaded.rows.get(input.controlId) : await findControl(db, org, input.controlId);
  if (!row) throw notFound('Control');
  const id = row.id;
  const fields = new Set(input.fields ?? []);
  const wantsOverview = fields.has('complianceOverview');
  const wantsArtifacts = fields.has('mappedArtifacts');
  const [requirements, artifacts, assignees, entities, people, artifactFrameworks, artifactEntities, frameworkEntities, risks] =
    await Promise.all([
      preloaded?.requirements ? (preloaded.requirements.get(id) ?? []) : listControlRequirements(db, org, id),
      preloaded?.artifacts ? (preloaded.artifacts.get(id) ?? []) : listControlArtifacts(db, org, id),
      preloaded?.assignees ?? loadSubjectPeople(db, org, 'control', 'assignee', [id]),
      preloaded?.entities ?? loadSubjectEntities(db, org, 'control', [id]),
      preloaded?.people ??
        loadPeopleByIds(
          db,
          org,
          [row.addedBy, row.lastModifiedBy].filter((p): p is string => p !== null),
        ),
      wantsOverview || wantsArtifacts ? loadControlArtifactFrameworks(db, org, id) : undefined,
      wantsArtifacts ? loadControlArtifactEntities(db, org, id) : undefined,
      wantsOverview ? loadSubjectEntities(db, org, 'framework') : undefined,
      fields.has('mappedRisks') ? loadRisks(db, org, 'control', [id]) : undefined,
    ]);

  requirements.sort(
    (a, b) =>
      byNameThenId({ name: a.frameworkName, id: a.frameworkId }, { name: b.frameworkName, id: b.frameworkId }) ||
      byNameThenId({ name: a.requirementCode, id: a.requirementId }, { name: b.requirementCode, id: b.requirementId }),
  );
  const frameworks = new Map<string, MappedFramework>();
  for (const r of requirements) {
    if (!frameworks.has(r.frameworkId)) frameworks.set(r.frameworkId, { frameworkId: r.frameworkId, frameworkName: r.frameworkName });
  }

  // The rule's graph restricted to this control's artifacts (cloud tests count, as everywhere).
  const views = new Map<ArtifactKey, { status: string; state: ArtifactState }>();
  const graph: ComplianceGraph = { artifacts: new Map(), artifactFrameworks: new Map() };
  for (const a of artifacts) {
    const key = artifactKey(a.type, a.id);
    const view = artifactView(a);
    views.set(key, view);
    graph.artifacts.set(key, view.state);
    const mapped = artifactFrameworks?.get(key);
    if (mapped) graph.artifactFrameworks.set(key, new Set(mapped.map((f) => f.frameworkId)));
  }
  const node: ControlNode = { id, scope: row.scope, frameworkIds: new Set(frameworks.keys()), artifactKeys: [...views.keys()] };

  const control: ControlDetail = {
    ...controlListItem(row, node, graph, { assignees, entities }),
    mappedFrameworks: [...frameworks.values()],
    controlQuestions: row.questions,
    mappedRequirements: requirements.map((r) => ({
      frameworkName: r.frameworkName,
      requirementCode: r.requirementCode,
      requirementName: r.requirementName,
    })),
  };
  setPresent(control, 'controlDescription', row.description);
  setPresent(control, 'outOfScopeReason', row.outOfScopeReason);
  setPresent(control, 'addedBy', row.addedBy ? people.get(row.addedBy) : undefined);
  control.addedOn = row.addedOn;
  setPresent(control, 'lastModifiedBy', row.lastModifiedBy ? people.get(row.lastModifiedBy) : undefined);
  control.modifiedOn = row.modifiedOn;

  if (wantsOverview) {
    control.complianceOverview = [...frameworks.values()].map((f) => {
      const compliance = controlCompliance(node, graph, new Set([f.frameworkId]));
      return {
        frameworkName: f.frameworkName,
        entities: frameworkEntities?.get(f.frameworkId) ?? [],
        controlStatus: compliance.status,
        artifactCompliancePercentage: compliance.percentage,
      };
    });
  }
  if (wantsArtifacts) {
    // Policies, evidence and automated tests; cloud tests are not listed (they still count above).
    // The plan bounds the answer: a kind of artifact the plan excludes is left out of the list. The
    // statuses above still follow the rule over every artifact (they are the control's own data).
    const listed = artifacts
      .filter((a) => plan.has(a.type))
      .filter((a) => a.type !== 'test' || a.kind === 'automated')
      .sort((a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || byNameThenId(a, b));
    control.mappedArtifacts = listed.map((a) => {
      const key = artifactKey(a.type, a.id);
      const view = views.get(key)!;
      const artifact: MappedArtifact = {
        name: a.name,
        artifactType: a.type,
        artifactStatus: view.status,
        entities: artifactEntities?.get(key) ?? [],
        frameworks: (artifactFrameworks?.get(key) ?? []).map((f) => f.frameworkName),
        isRelevant: view.state.relevant,
      };
      setPresent(artifact, 'justification', a.reason);
      return artifact;
    });
  }
  if (risks) control.mappedRisks = risks.get(id) ?? [];
  return control;
}
