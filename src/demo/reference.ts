// The records everything else points at: people, entities, applications, risks, the three
// frameworks with their requirements, and the custom fields of vulnerability findings.
import { CSF_FRAMEWORK_NAME, CSF_SUBCATEGORIES } from './catalogues/nist-csf-2.ts';
import { ISO_FRAMEWORK_NAME, ISO_REQUIREMENTS } from './catalogues/iso27001.ts';
import { SOC2_FRAMEWORK_NAME, SOC2_REQUIREMENTS, SOC2_TSC_SELECTIONS } from './catalogues/soc2.ts';
import {
  APPLICATIONS,
  EMAIL_DOMAIN,
  ENTITIES,
  ENTITY_PRODUCTS,
  ENTITY_REGIONS,
  FIRST_NAMES,
  LAST_NAMES,
  RISKS,
  VULNERABILITY_CUSTOM_FIELDS,
} from './catalogues/organization.ts';
import { type Ctx, json, NS, stamps, tick } from './context.ts';
import { DAY_MS } from '../shared/vocabulary.ts';

export interface FrameworkDef {
  key: 'csf' | 'soc2' | 'iso';
  name: string;
  requirements: readonly { code: string; name: string }[];
  tscSelections: readonly string[];
  /** days from now to the next audit, or null */
  auditInDays: number | null;
  /** indexes into the entity list */
  entities: readonly number[];
}

export const FRAMEWORKS: readonly FrameworkDef[] = [
  {
    key: 'csf',
    name: CSF_FRAMEWORK_NAME,
    tscSelections: [],
    auditInDays: null,
    entities: [0, 4],
    requirements: CSF_SUBCATEGORIES.map((s) => ({ code: s.code, name: s.requirement })),
  },
  {
    key: 'soc2',
    name: SOC2_FRAMEWORK_NAME,
    requirements: SOC2_REQUIREMENTS,
    tscSelections: SOC2_TSC_SELECTIONS,
    auditInDays: 75,
    entities: [0, 1],
  },
  { key: 'iso', name: ISO_FRAMEWORK_NAME, requirements: ISO_REQUIREMENTS, tscSelections: [], auditInDays: 160, entities: [0, 5, 2] },
];

/** the key under which a requirement's ID is kept in ctx.requirementIds */
export const requirementKey = (framework: FrameworkDef['key'], code: string) => `${framework}:${code}`;

function asciiLocal(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase();
}

/** person `p`: unique (first, last) pairs for the first 1,600, then numbered */
export function personName(p: number): { name: string; email: string } {
  const pairs = FIRST_NAMES.length * LAST_NAMES.length;
  const first = FIRST_NAMES[p % FIRST_NAMES.length];
  const last = LAST_NAMES[(p + Math.floor(p / FIRST_NAMES.length)) % LAST_NAMES.length];
  const round = Math.floor(p / pairs);
  const local = `${asciiLocal(first)}.${asciiLocal(last)}${round > 0 ? round + 1 : ''}`;
  return { name: `${first} ${last}`, email: `${local}@${EMAIL_DOMAIN}` };
}

export function entityName(e: number): string {
  if (e < ENTITIES.length) return ENTITIES[e];
  const k = e - ENTITIES.length;
  const combos = ENTITY_PRODUCTS.length * ENTITY_REGIONS.length;
  if (k < combos) return `${ENTITY_PRODUCTS[k % ENTITY_PRODUCTS.length]} ${ENTITY_REGIONS[Math.floor(k / ENTITY_PRODUCTS.length)]}`;
  return `Business Unit ${k - combos + 1}`;
}

export function riskName(r: number): string {
  const round = Math.floor(r / RISKS.length);
  return `${RISKS[r % RISKS.length]}${round > 0 ? ` (${round + 1})` : ''}`;
}

export async function generateReference(ctx: Ctx): Promise<void> {
  const org = ctx.organizationId;
  const w = ctx.writer;
  for (let p = 0; p < ctx.plan.people; p++) {
    const person = { id: ctx.ids.at(NS.person, p), ...personName(p) };
    ctx.people.push(person);
    w.add('people', { ...person, organization_id: org });
    await tick(ctx);
  }
  for (let e = 0; e < ctx.plan.entities; e++) {
    const id = ctx.ids.at(NS.entity, e);
    ctx.entityIds.push(id);
    w.add('entities', { id, organization_id: org, name: entityName(e) });
    await tick(ctx);
  }
  APPLICATIONS.forEach((name, a) => {
    const id = ctx.ids.at(NS.application, a);
    ctx.applicationIds.set(name, id);
    w.add('applications', { id, organization_id: org, name });
  });
  for (let a = 0; a < APPLICATIONS.length; a++) await tick(ctx);
  for (let r = 0; r < ctx.plan.risks; r++) {
    w.add('risks', { id: ctx.ids.at(NS.risk, r), organization_id: org, name: riskName(r) });
    await tick(ctx);
  }

  let requirementIndex = 0;
  for (let f = 0; f < FRAMEWORKS.length; f++) {
    const def = FRAMEWORKS[f];
    const rng = ctx.seeder.rng(NS.frameworks, f);
    const frameworkId = ctx.ids.at(NS.framework, f);
    w.add('frameworks', {
      id: frameworkId,
      organization_id: org,
      name: def.name,
      next_audit_date: def.auditInDays === null ? null : ctx.now + def.auditInDays * DAY_MS,
      tsc_selections: json(def.tscSelections),
      ...stamps(ctx, rng, 900, 600),
    });
    for (const e of def.entities) {
      if (e < ctx.entityIds.length) {
        w.add('subject_entities', {
          organization_id: org,
          subject_type: 'framework',
          subject_id: frameworkId,
          entity_id: ctx.entityIds[e],
        });
      }
    }
    await tick(ctx);
    for (const req of def.requirements) {
      const id = ctx.ids.at(NS.requirement, requirementIndex++);
      ctx.requirementIds.set(requirementKey(def.key, req.code), id);
      w.add('requirements', { id, organization_id: org, framework_id: frameworkId, code: req.code, name: req.name });
      await tick(ctx);
    }
  }

  VULNERABILITY_CUSTOM_FIELDS.forEach((field, position) => {
    const id = ctx.ids.at(NS.customField, position);
    ctx.customFields.push({ id, fieldType: field.fieldType, options: field.options, fill: field.fill, samples: field.samples });
    w.add('custom_fields', {
      id,
      organization_id: org,
      resource_type: 'vulnerability',
      title: field.title,
      field_type: field.fieldType,
      options: json(field.options),
      position,
    });
  });
  for (let c = 0; c < VULNERABILITY_CUSTOM_FIELDS.length; c++) await tick(ctx);
}

/** progress units generateReference reports */
export function referenceUnits(ctx: Ctx): number {
  const requirements = FRAMEWORKS.reduce((n, f) => n + f.requirements.length, 0);
  return (
    ctx.plan.people +
    ctx.plan.entities +
    APPLICATIONS.length +
    ctx.plan.risks +
    FRAMEWORKS.length +
    requirements +
    VULNERABILITY_CUSTOM_FIELDS.length
  );
}
