// The seeded demo-data generator's entry point. `loadDemoData` fills an existing organization with
// a realistic compliance program: three frameworks (NIST CSF 2.0, SOC 2-style, ISO 27001-style),
// controls, policies, evidence, tests and vulnerability findings. Output depends only on
// (organizationId, seed, scale, now): IDs derive from the organization, content from the seed, so
// two organizations loaded with the same seed hold the same data under different IDs. Rows are
// generated one record at a time and written in transactions of ~20k rows, so memory stays flat
// even at scale 2000 (about a million findings).
import type { Db } from '../storage/db/connect.ts';
import { bumpDataVersions } from '../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../shared/data-versions.ts';
import { ControlModel, generateControls } from './controls.ts';
import { type Ctx, makeCtx } from './context.ts';
import { generateEvidence } from './evidence.ts';
import { generatePolicies } from './policies.ts';
import { orgTag } from '../shared/org-tag.ts';
import { generateReference, referenceUnits } from './reference.ts';
import { generateTests } from './tests.ts';
import { generateVulnerabilities } from './vulnerabilities.ts';

export { planFor, type Plan } from './context.ts';

export interface DemoOptions {
  /** size multiplier (default 1): ~150 controls, ~260 artifacts, ~500 findings per unit; see planFor */
  scale?: number;
  /** content seed (default 1) */
  seed?: number;
  /** epoch ms that every relative date is computed from (default 2026-01-15T00:00:00Z) */
  now?: number;
  /** called as records are written: progress units done and total (units are top-level records) */
  onProgress?: (done: number, total: number) => void;
}

export interface DemoSummary {
  frameworks: number;
  requirements: number;
  controls: number;
  policies: number;
  evidence: number;
  tests: number;
  vulnerabilities: number;
  vulnerabilityResources: number;
  testResources: number;
  testHistory: number;
  attachments: number;
  people: number;
  entities: number;
  applications: number;
  risks: number;
  tickets: number;
  customFields: number;
  customFieldValues: number;
  /** rows written to every table */
  rows: number;
  /** rows written per table */
  tables: Record<string, number>;
  elapsedMs: number;
  /** wall time per phase (reference, controls, policies, evidence, tests, vulnerabilities); writes overlap phases */
  phaseMs: Record<string, number>;
}

export const DEFAULT_DEMO_NOW = Date.UTC(2026, 0, 15);

/** every phase in order; reference data first, findings last (they reference nothing but people) */
async function generate(ctx: Ctx, phase: (name: string) => void): Promise<void> {
  await generateReference(ctx);
  phase('reference');
  const controls = new ControlModel(ctx);
  await generateControls(ctx, controls);
  phase('controls');
  await generatePolicies(ctx, controls);
  phase('policies');
  await generateEvidence(ctx, controls);
  phase('evidence');
  await generateTests(ctx, controls);
  phase('tests');
  await ctx.writer.flush(); // so the findings' phase times findings alone
  phase('tests');
  await generateVulnerabilities(ctx);
  await ctx.writer.flush();
  phase('vulnerabilities');
}

/**
 * Fills `organizationId` (which must exist and hold no compliance data yet) with demo data.
 * Bumps every data version of the organization at the end so cached responses are not reused.
 * Batches commit as they go: if loading fails midway, the rows already written stay; delete the
 * organization (its rows cascade) before loading again.
 */
export async function loadDemoData(db: Db, organizationId: string, options: DemoOptions = {}): Promise<DemoSummary> {
  const started = performance.now();
  const scale = options.scale ?? 1;
  const seed = options.seed ?? 1;
  const now = options.now ?? DEFAULT_DEMO_NOW;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);

  const org = await db.kysely.selectFrom('organizations').select('id').where('id', '=', organizationId).executeTakeFirst();
  if (!org) throw new Error(`organization ${organizationId} does not exist`);
  for (const table of ['frameworks', 'controls', 'policies', 'evidence', 'tests', 'vulnerabilities'] as const) {
    const existing = await db.kysely
      .selectFrom(table)
      .select('id')
      .where('organization_id', '=', organizationId)
      .limit(1)
      .executeTakeFirst();
    if (existing) throw new Error(`organization ${organizationId} already has ${table}; demo data loads only into an empty organization`);
  }

  const ctx = makeCtx(db, organizationId, seed, now, scale, orgTag(organizationId));
  const { plan } = ctx;
  ctx.progress.total = referenceUnits(ctx) + plan.controls + plan.policies + plan.evidence + plan.tests + plan.vulnerabilities;
  ctx.progress.report = options.onProgress;

  const phaseMs: Record<string, number> = {};
  let mark = performance.now();
  const phase = (name: string) => {
    const at = performance.now();
    phaseMs[name] = (phaseMs[name] ?? 0) + Math.round(at - mark);
    mark = at;
  };
  try {
    await generate(ctx, phase);
  } catch (err) {
    await ctx.writer.drain();
    throw err;
  }
  options.onProgress?.(ctx.progress.done, ctx.progress.total);

  await bumpDataVersions(db.kysely, organizationId, WRITES['demo.load']);

  const t = ctx.writer.counts();
  return {
    frameworks: t.frameworks,
    requirements: t.requirements,
    controls: t.controls,
    policies: t.policies,
    evidence: t.evidence,
    tests: t.tests,
    vulnerabilities: t.vulnerabilities,
    vulnerabilityResources: t.vulnerability_resources,
    testResources: t.test_resources,
    testHistory: t.test_history,
    attachments: t.attachments,
    people: t.people,
    entities: t.entities,
    applications: t.applications,
    risks: t.risks,
    tickets: t.tickets,
    customFields: t.custom_fields,
    customFieldValues: t.custom_field_values,
    rows: Object.values(t).reduce((a, b) => a + b, 0),
    tables: t,
    elapsedMs: Math.round(performance.now() - started),
    phaseMs,
  };
}
