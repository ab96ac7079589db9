// Controls: one template per NIST CSF subcategory, repeated as qualified variants ("… (EU
// region)") at larger scales. Each control maps to its CSF subcategory plus SOC 2 and ISO
// requirements through the category crosswalk. Every control also gets a hidden compliance
// class that steers which artifacts may map to it, so the computed statuses come out mixed:
//   out_of_scope → scope out_of_scope (not_applicable whatever is mapped)
//   empty        → only irrelevant artifacts may map (not_applicable: no relevant artifact)
//   compliant    → only complete or irrelevant artifacts may map (compliant when any maps)
//   mixed        → anything may map (usually non_compliant)
import { CROSSWALK } from './catalogues/crosswalk.ts';
import { CSF_CATEGORIES, CSF_SUBCATEGORIES, type CsfCategory } from './catalogues/nist-csf-2.ts';
import { OUT_OF_SCOPE_REASONS, VARIANT_QUALIFIERS } from './catalogues/artifacts.ts';
import { addEntities, addPeople, addRiskLinks, type Ctx, json, lowerFirst, NS, personId, stamps, tick, variantName } from './context.ts';
import type { Rng } from './random.ts';
import { requirementKey } from './reference.ts';

export type ControlClass = 'out_of_scope' | 'empty' | 'compliant' | 'mixed';
const CLASSES: readonly ControlClass[] = ['out_of_scope', 'empty', 'compliant', 'mixed'];

const T = CSF_SUBCATEGORIES.length;
// Variants v ≥ 1 visit the templates in a shuffled order t = (STEP·k + SHIFT·v) mod T, so extra
// controls spread over every domain. STEP is coprime with T, hence a bijection.
const STEP = 41;
const SHIFT = 7;
const INV_STEP = (() => {
  for (let x = 1; x < T; x++) if ((STEP * x) % T === 1) return x;
  throw new Error('STEP must be coprime with the template count');
})();
const mod = (a: number, m: number) => ((a % m) + m) % m;

export function templateOf(i: number): { t: number; v: number } {
  const v = Math.floor(i / T);
  const k = i % T;
  return { t: v === 0 ? k : mod(STEP * k + SHIFT * v, T), v };
}

export function indexOf(t: number, v: number): number {
  const k = v === 0 ? t : mod((t - SHIFT * v) * INV_STEP, T);
  return v * T + k;
}

const CATEGORY: ReadonlyMap<string, CsfCategory> = new Map(CSF_CATEGORIES.map((c) => [c.code, c]));
const TEMPLATES_BY_CATEGORY = new Map<string, number[]>();
CSF_SUBCATEGORIES.forEach((s, t) => {
  const list = TEMPLATES_BY_CATEGORY.get(s.category) ?? [];
  list.push(t);
  TEMPLATES_BY_CATEGORY.set(s.category, list);
});

/** spreads a category's crosswalk codes over its subcategories, so every code is used */
function share(codes: readonly string[], position: number, size: number): string[] {
  const mine = codes.filter((_, j) => j % size === position);
  return mine.length > 0 ? mine : [codes[position % codes.length]];
}

/** requirement keys of each template: CSF, SOC 2, ISO */
const TEMPLATE_REQUIREMENTS = CSF_SUBCATEGORIES.map((s, t) => {
  const siblings = TEMPLATES_BY_CATEGORY.get(s.category)!;
  const position = siblings.indexOf(t);
  const walk = CROSSWALK[s.category];
  return {
    csf: [requirementKey('csf', s.code)],
    soc2: share(walk.soc2, position, siblings.length).map((c) => requirementKey('soc2', c)),
    iso: share(walk.iso, position, siblings.length).map((c) => requirementKey('iso', c)),
  };
});

const QUESTIONS: Readonly<Record<string, readonly string[]>> = {
  govern: ['Who approves changes to this control?', 'When did leadership last review it?'],
  identify: ['Does the inventory cover every in-scope system?', 'How often is the information refreshed?'],
  protect: ['Is the safeguard enforced on every production system?', 'How are exceptions approved and tracked?'],
  detect: ['Which alerts does this control raise and who receives them?', 'How quickly are alerts triaged?'],
  respond: ['Was the procedure exercised in the last year?', 'Who leads the response when it is triggered?'],
  recover: ['When was recovery last tested?', 'What recovery time objective applies?'],
};
const GENERIC_QUESTION = 'What evidence shows the control operated during the audit period?';

/** Random access to the controls of one generation: IDs, classes, requirements, picking. */
export class ControlModel {
  readonly count: number;
  private readonly ctx: Ctx;
  private readonly classes: Uint8Array;

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.count = ctx.plan.controls;
    this.classes = new Uint8Array(this.count);
    for (let i = 0; i < this.count; i++) {
      const r = ctx.seeder.rng(NS.controlClass, i).next();
      this.classes[i] = r < 0.07 ? 0 : r < 0.15 ? 1 : r < 0.5 ? 2 : 3;
    }
  }

  id(i: number): string {
    return this.ctx.ids.at(NS.control, i);
  }

  classOf(i: number): ControlClass {
    return CLASSES[this.classes[i]];
  }

  /** requirement IDs control `i` maps to; variants sometimes skip SOC 2 or ISO */
  requirementsOf(i: number): string[] {
    const { t, v } = templateOf(i);
    const keys = TEMPLATE_REQUIREMENTS[t];
    let out = keys.csf;
    if (v > 0) {
      const rng = this.ctx.seeder.rng(NS.controlRequirements, i);
      const skip = rng.weighted([
        ['none', 65],
        ['soc2', 20],
        ['iso', 15],
      ] as const);
      if (skip !== 'soc2') out = out.concat(keys.soc2);
      if (skip !== 'iso') out = out.concat(keys.iso);
    } else {
      out = out.concat(keys.soc2, keys.iso);
    }
    return out.map((k) => this.ctx.requirementIds.get(k)!);
  }

  /**
   * Picks up to `count` distinct controls for an artifact, mostly from `categories`, honouring the
   * classes: an irrelevant artifact may map anywhere, a relevant complete one anywhere but `empty`
   * controls, a relevant incomplete one only to `out_of_scope` or `mixed` controls.
   */
  pick(rng: Rng, categories: readonly string[], relevant: boolean, complete: boolean, count: number): number[] {
    const picks: number[] = [];
    const variants = Math.floor(this.count / T);
    for (let attempt = 0; attempt < count * 10 && picks.length < count; attempt++) {
      let i: number;
      if (categories.length > 0 && rng.chance(0.7)) {
        const templates = TEMPLATES_BY_CATEGORY.get(rng.pick(categories))!;
        i = indexOf(rng.pick(templates), rng.int(0, variants));
      } else {
        i = Math.floor(rng.next() * this.count);
      }
      if (i >= this.count || picks.includes(i)) continue;
      const cls = this.classes[i];
      if (relevant && cls === 1) continue;
      if (relevant && !complete && cls === 2) continue;
      picks.push(i);
    }
    return picks;
  }
}

export async function generateControls(ctx: Ctx, model: ControlModel): Promise<void> {
  const org = ctx.organizationId;
  const w = ctx.writer;
  for (let i = 0; i < model.count; i++) {
    const { t, v } = templateOf(i);
    const sub = CSF_SUBCATEGORIES[t];
    const category = CATEGORY.get(sub.category)!;
    const rng = ctx.seeder.rng(NS.control, i);
    const id = model.id(i);
    const outOfScope = model.classOf(i) === 'out_of_scope';
    const name = v === 0 ? sub.control : variantName(sub.control, v, t, VARIANT_QUALIFIERS);
    const questions = [...rng.sample(QUESTIONS[category.functionGrouping], rng.int(1, 2))];
    if (rng.chance(0.5)) questions.push(GENERIC_QUESTION);
    w.add('controls', {
      id,
      organization_id: org,
      code: `CTL-${String(i + 1).padStart(4, '0')}`,
      name,
      description: `${name}. Answers ${sub.code}: ${lowerFirst(sub.requirement)}.`,
      domain: category.domain,
      function_grouping: category.functionGrouping,
      scope: outOfScope ? 'out_of_scope' : 'in_scope',
      out_of_scope_reason: outOfScope ? rng.pick(OUT_OF_SCOPE_REASONS) : null,
      marked_out_of_scope_by: outOfScope ? personId(ctx, rng) : null,
      questions: json(questions),
      ...stamps(ctx, rng, 720, 30),
    });
    for (const requirementId of model.requirementsOf(i)) {
      w.add('control_requirements', { organization_id: org, control_id: id, requirement_id: requirementId });
    }
    if (rng.chance(0.9)) addPeople(ctx, rng, 'control', id, 'assignee', rng.int(1, 2));
    if (rng.chance(0.7)) addEntities(ctx, rng, 'control', id, rng.int(1, 2));
    if (rng.chance(0.15)) addRiskLinks(ctx, rng, 'control', id, rng.int(1, 2));
    await tick(ctx);
  }
}

/**
 * Writes an artifact's mappings: to each picked control, and to a subset (about three quarters,
 * at least one) of the requirements those controls map to, so per-framework figures hold.
 */
export function mapArtifact(
  ctx: Ctx,
  model: ControlModel,
  rng: Rng,
  artifactType: 'policy' | 'evidence' | 'test',
  artifactId: string,
  controls: readonly number[],
): void {
  const org = ctx.organizationId;
  const requirements = new Set<string>();
  for (const c of controls) {
    ctx.writer.add('control_artifacts', {
      organization_id: org,
      control_id: model.id(c),
      artifact_type: artifactType,
      artifact_id: artifactId,
    });
    for (const r of model.requirementsOf(c)) requirements.add(r);
  }
  const all = [...requirements];
  const kept = all.filter(() => rng.chance(0.75));
  if (kept.length === 0 && all.length > 0) kept.push(rng.pick(all));
  for (const requirementId of kept) {
    ctx.writer.add('artifact_requirements', {
      organization_id: org,
      artifact_type: artifactType,
      artifact_id: artifactId,
      requirement_id: requirementId,
    });
  }
}
