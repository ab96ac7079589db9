// Automated and cloud tests with their flagged resources and scan history. A test's ID is
// `test_<slug>_<org tag>`: the slug names the check, the tag (a hash of the organization ID)
// keeps IDs unique across organizations since tests.id is a global key. The first four tests
// are ignored, fix_required, passing and affected (passing with a failing integration).
import { IGNORE_REASONS, TEST_TEMPLATES, TEST_VARIANTS, type ResourceKind, type TestTemplate } from './catalogues/artifacts.ts';
import { REPOSITORIES, RESOURCE_TAGS } from './catalogues/vulnerabilities.ts';
import { type ControlModel, mapArtifact } from './controls.ts';
import { addEntities, addPeople, addRiskLinks, addTickets, type Ctx, json, lowerFirst, NS, tick } from './context.ts';
import type { Rng } from './random.ts';
import { DAY_MS, EFFORT_ESTIMATES } from '../shared/vocabulary.ts';

type Result = 'ignored' | 'fix_required' | 'passing';
type PublicStatus = Result | 'affected';

export interface TestIdentity {
  id: string;
  slug: string;
  name: string;
  template: TestTemplate;
}

/** The ID, slug and name of test `j` (random access, for links from evidence). */
export function testIdentity(ctx: Ctx, j: number): TestIdentity {
  const template = TEST_TEMPLATES[j % TEST_TEMPLATES.length];
  const v = Math.floor(j / TEST_TEMPLATES.length);
  let slug = template.slug;
  let name = template.name;
  if (v > 0) {
    const [variantSlug, variantName] = TEST_VARIANTS[(v - 1) % TEST_VARIANTS.length];
    const round = Math.floor((v - 1) / TEST_VARIANTS.length);
    slug = `${slug}_${variantSlug}${round > 0 ? round + 1 : ''}`;
    name = `${name} (${variantName}${round > 0 ? ` ${round + 1}` : ''})`;
  }
  return { id: `test_${slug}_${ctx.orgTag}`, slug, name, template };
}

const AWS_REGIONS = ['us-east-1', 'eu-west-1', 'eu-central-1', 'ap-southeast-2'];
const AWS_ACCOUNTS = ['123456789012', '210987654321', '345678901234'];
const GCP_REGIONS = ['us-central1', 'europe-west1', 'asia-southeast1'];
const AZURE_REGIONS = ['westeurope', 'eastus', 'australiaeast'];
/** the cloud service a test's slug refers to (its second word) */
const SERVICES: Readonly<Record<string, string>> = {
  root: 'iam',
  iam: 'iam',
  s3: 's3',
  rds: 'rds',
  cloudtrail: 'cloudtrail',
  guardduty: 'guardduty',
  security: 'ec2',
  ebs: 'ec2',
  vpc: 'ec2',
  kms: 'kms',
  config: 'config',
  load: 'elasticloadbalancing',
  storage: 'storage',
  sql: 'sqladmin',
  audit: 'logging',
  service: 'iam',
  firewall: 'compute',
  defender: 'Security',
  key: 'KeyVault',
};
const serviceOf = (template: TestTemplate) => {
  const word = template.slug.split('_')[1];
  const service = SERVICES[word] ?? word;
  return template.resource === 'azure' && word === 'storage'
    ? 'Storage'
    : template.resource === 'azure' && word === 'sql'
      ? 'Sql'
      : service;
};
const WORDS = ['api', 'web', 'worker', 'billing', 'ledger', 'search', 'events', 'reports', 'auth', 'media'];

interface ResourceShape {
  resource_id: string;
  name: string;
  region: string | null;
  service: string | null;
  account_id: string | null;
  link: string | null;
  description: string;
}

function resourceShape(ctx: Ctx, rng: Rng, template: TestTemplate, env: string): ResourceShape {
  const kind: ResourceKind = template.resource;
  const app = template.applications[0];
  const word = rng.pick(WORDS);
  const suffix = rng.hex(6);
  switch (kind) {
    case 'user': {
      const person = ctx.people[Math.floor(rng.next() * ctx.people.length)];
      return {
        resource_id: `usr_${suffix}`,
        name: person.email,
        region: null,
        service: app,
        account_id: null,
        link: `https://admin.example.com/${app.toLowerCase().replace(/\s+/g, '-')}/users/usr_${suffix}`,
        description: `${app} account of ${person.name}`,
      };
    }
    case 'saas':
      return {
        resource_id: `${app.toLowerCase().replace(/\s+/g, '-')}:${word}-${suffix}`,
        name: `${app} ${word} settings`,
        region: null,
        service: app,
        account_id: 'acme',
        link: `https://admin.example.com/${app.toLowerCase().replace(/\s+/g, '-')}/settings/${word}`,
        description: `${app} configuration for ${word}`,
      };
    case 'repo': {
      const repo = rng.pick(REPOSITORIES);
      return {
        resource_id: `repo_${suffix}`,
        name: repo,
        region: null,
        service: 'GitHub',
        account_id: 'acme',
        link: `https://github.example.com/${repo}`,
        description: `Repository ${repo}`,
      };
    }
    case 'endpoint': {
      const person = ctx.people[Math.floor(rng.next() * ctx.people.length)];
      const serial = `C02${rng.hex(7).toUpperCase()}`;
      return {
        resource_id: serial,
        name: `${person.name.split(' ')[0]}'s MacBook Pro`,
        region: null,
        service: app,
        account_id: null,
        link: `https://mdm.example.com/devices/${serial}`,
        description: `Laptop ${serial} assigned to ${person.email}`,
      };
    }
    case 'aws': {
      const service = serviceOf(template);
      const region = rng.pick(AWS_REGIONS);
      const account = rng.pick(AWS_ACCOUNTS);
      const resourceName = `acme-${env.slice(0, 4)}-${word}-${suffix.slice(0, 4)}`;
      return {
        resource_id: `arn:aws:${service}:${region}:${account}:${resourceName}`,
        name: resourceName,
        region,
        service,
        account_id: account,
        link: `https://console.aws.example.com/${service}/home?region=${region}#${resourceName}`,
        description: `${service.toUpperCase()} resource ${resourceName}`,
      };
    }
    case 'gcp': {
      const service = serviceOf(template);
      const project = `acme-${env.slice(0, 4)}-${suffix.slice(0, 4)}`;
      const resourceName = `${word}-${suffix.slice(2)}`;
      return {
        resource_id: `//${service}.googleapis.com/projects/${project}/${resourceName}`,
        name: resourceName,
        region: rng.pick(GCP_REGIONS),
        service,
        account_id: project,
        link: `https://console.cloud.example.com/${service}?project=${project}`,
        description: `${service} resource in ${project}`,
      };
    }
    case 'azure': {
      const service = serviceOf(template);
      const subscription = `${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}`;
      const resourceName = `acme${word}${suffix.slice(0, 4)}`;
      return {
        resource_id: `/subscriptions/${subscription}/resourceGroups/rg-${env}/providers/Microsoft.${service}/${resourceName}`,
        name: resourceName,
        region: rng.pick(AZURE_REGIONS),
        service,
        account_id: subscription,
        link: `https://portal.azure.example.com/#resource/${resourceName}`,
        description: `Azure ${service} ${resourceName}`,
      };
    }
    case 'k8s': {
      const cluster = `${env}-${rng.pick(['eks', 'gke'])}-1`;
      const namespace = rng.pick(['default', 'payments', 'platform', 'data', 'monitoring']);
      const pod = `${word}-${suffix}`;
      return {
        resource_id: `${cluster}/${namespace}/${pod}`,
        name: pod,
        region: rng.pick(AWS_REGIONS),
        service: 'kubernetes',
        account_id: cluster,
        link: `https://k8s.example.com/${cluster}/${namespace}/${pod}`,
        description: `Workload ${pod} in ${namespace}`,
      };
    }
  }
}

const RESULT_WEIGHTS: readonly (readonly [Result, number])[] = [
  ['passing', 55],
  ['fix_required', 30],
  ['ignored', 15],
];

/** resource statuses consistent with the test's result */
function resourceStatuses(rng: Rng, result: Result): Result[] {
  if (result === 'ignored') return Array.from({ length: rng.int(1, 3) }, () => 'ignored');
  if (result === 'passing') {
    const out: Result[] = Array.from({ length: rng.int(1, 5) }, () => 'passing');
    if (rng.chance(0.2)) out.push('ignored');
    return out;
  }
  const out: Result[] = Array.from({ length: rng.int(1, 4) }, () => 'fix_required');
  for (let k = rng.int(0, 3); k > 0; k--) out.push('passing');
  if (rng.chance(0.25)) out.push('ignored');
  return out;
}

/** ten daily scans ending with the current status; earlier ones drift */
function history(rng: Rng, current: PublicStatus, automated: boolean): PublicStatus[] {
  const out: PublicStatus[] = [current];
  const others: readonly (readonly [PublicStatus, number])[] = automated
    ? [
        ['passing', 45],
        ['fix_required', 40],
        ['affected', 15],
      ]
    : [
        ['passing', 50],
        ['fix_required', 50],
      ];
  for (let k = 1; k < 10; k++) {
    const later = out[0];
    out.unshift(rng.chance(0.75) ? later : rng.weighted(others));
  }
  return out;
}

export async function generateTests(ctx: Ctx, model: ControlModel): Promise<void> {
  const org = ctx.organizationId;
  const w = ctx.writer;
  for (let j = 0; j < ctx.plan.tests; j++) {
    const rng = ctx.seeder.rng(NS.test, j);
    const { id, name, template } = testIdentity(ctx, j);
    const automated = template.kind === 'automated';
    const forced: readonly [Result, boolean][] = [
      ['ignored', false],
      ['fix_required', false],
      ['passing', false],
      ['passing', true],
    ];
    let result: Result;
    let integrationFailing: boolean;
    if (j < forced.length && (automated || !forced[j][1])) {
      [result, integrationFailing] = forced[j];
    } else {
      result = rng.weighted(RESULT_WEIGHTS);
      integrationFailing = automated && result === 'passing' && rng.chance(0.15);
    }
    const status: PublicStatus = integrationFailing ? 'affected' : result;
    const addedOn = rng.time(ctx.now - 500 * DAY_MS, ctx.now - 30 * DAY_MS);
    const lastScanned = rng.time(ctx.now - DAY_MS, ctx.now);
    w.add('tests', {
      id,
      organization_id: org,
      kind: template.kind,
      name,
      result,
      integration_failing: integrationFailing,
      description: `Checks that ${lowerFirst(name)}, using data from ${template.applications.join(' and ')}.`,
      remediation: `Fix each flagged resource in ${template.applications[0]}, then re-run the test; see the runbook for ${template.slug.replaceAll('_', ' ')}.`,
      notes: rng.chance(0.3)
        ? rng.pick([
            'Owned by the platform team',
            'Auditor sampled this test last year',
            'Runs every 24 hours',
            'Exceptions tracked in the risk register',
          ])
        : null,
      effort_estimate: rng.pick(EFFORT_ESTIMATES),
      ignore_reason: result === 'ignored' ? rng.pick(IGNORE_REASONS) : null,
      last_scanned_on: lastScanned,
      added_on: addedOn,
      modified_on: rng.chance(0.85) ? rng.time(addedOn, ctx.now) : null,
    });
    for (const app of template.applications) {
      w.add('test_applications', { organization_id: org, test_id: id, application_id: ctx.applicationIds.get(app)! });
    }
    for (const resourceStatus of resourceStatuses(rng, result)) {
      const env = rng.weighted([
        ['production', 60],
        ['staging', 25],
        ['development', 15],
      ] as const);
      const shape = resourceShape(ctx, rng, template, env);
      const resourceId = ctx.ids.next(NS.testResource);
      w.add('test_resources', {
        id: resourceId,
        organization_id: org,
        test_id: id,
        ...shape,
        status: resourceStatus,
        last_scanned_at: lastScanned,
        first_detected: rng.time(addedOn, lastScanned),
        tags: json(rng.sample(RESOURCE_TAGS, rng.int(0, 3))),
        environment: env,
      });
      if (rng.chance(0.4)) addPeople(ctx, rng, 'test_resource', resourceId, 'assignee', 1);
      if (rng.chance(0.3)) addEntities(ctx, rng, 'test_resource', resourceId, 1);
    }
    history(rng, status, automated).forEach((s, k) => {
      w.add('test_history', {
        id: ctx.ids.next(NS.testHistory),
        organization_id: org,
        test_id: id,
        scanned_on: lastScanned - (9 - k) * DAY_MS,
        status: s,
      });
    });
    addPeople(ctx, rng, 'test', id, 'assignee', rng.chance(result === 'fix_required' ? 0.95 : 0.7) ? rng.int(1, 2) : 0);
    addEntities(ctx, rng, 'test', id, rng.int(1, 2));
    if (rng.chance(result === 'fix_required' ? 0.4 : 0.1)) addTickets(ctx, rng, 'test', id, rng.int(1, 2));
    if (rng.chance(0.1)) addRiskLinks(ctx, rng, 'test', id, 1);

    const relevant = result !== 'ignored';
    const complete = relevant && status === 'passing';
    const controls = model.pick(rng, [template.category], relevant, complete, rng.int(1, 3));
    mapArtifact(ctx, model, rng, 'test', id, controls);
    await tick(ctx);
  }
}
