// Third-party vulnerability findings: every source, status and severity, with 0-5 affected
// resources, custom field values, tickets and risks. Finding keys are unique per organization
// (hence per source): `CVE-<2018+i mod 8>-<10000+⌊i/8⌋>` for CVE findings, `VUL-<i+1, ≥4 digits>`
// otherwise, where i is the finding's index.
import {
  CLOUD_COMPONENTS,
  CODE_COMPONENTS,
  HOST_COMPONENTS,
  HOST_WEAKNESSES,
  NON_CVE_TITLES,
  REMEDIATIONS,
  REPOSITORIES,
  RESOURCE_TAGS,
  RESOURCE_TYPES,
  SOURCE_FAMILY,
  SOURCE_WEIGHTS,
  WEAKNESSES,
} from './catalogues/vulnerabilities.ts';
import { addPeople, addRiskLinks, addTickets, type Ctx, json, NS, personId, tick } from './context.ts';
import type { Rng } from './random.ts';
import { DAY_MS, SEVERITIES, VULNERABILITY_SOURCES, VULNERABILITY_STATUSES } from '../shared/vocabulary.ts';

type Status = (typeof VULNERABILITY_STATUSES)[number];
type Severity = (typeof SEVERITIES)[number];

const STATUS_WEIGHTS: readonly (readonly [Status, number])[] = [
  ['open', 45],
  ['closed', 30],
  ['acknowledged', 12],
  ['ignored', 6],
  ['risk', 7],
];
const SEVERITY_WEIGHTS: readonly (readonly [Severity, number])[] = [
  ['critical', 8],
  ['high', 25],
  ['medium', 42],
  ['low', 25],
];
const CVSS: Readonly<Record<Severity, [number, number]>> = {
  critical: [9.0, 10.0],
  high: [7.0, 8.9],
  medium: [4.0, 6.9],
  low: [0.1, 3.9],
};
/** days to fix, by severity */
const SLA: Readonly<Record<Severity, number>> = { critical: 7, high: 30, medium: 90, low: 180 };
const RESOURCE_COUNT_WEIGHTS: readonly (readonly [number, number])[] = [
  [0, 10],
  [1, 30],
  [2, 25],
  [3, 15],
  [4, 10],
  [5, 10],
];

export function findingKey(i: number, hasCve: boolean): string {
  return hasCve ? `CVE-${2018 + (i % 8)}-${10000 + Math.floor(i / 8)}` : `VUL-${String(i + 1).padStart(4, '0')}`;
}

/** an affected resource's status, mostly following the finding's */
function resourceStatus(rng: Rng, status: Status): Status {
  switch (status) {
    case 'open':
      return rng.chance(0.8) ? 'open' : 'closed';
    case 'acknowledged':
      return rng.chance(0.7) ? 'acknowledged' : 'open';
    case 'risk':
      return rng.chance(0.8) ? 'risk' : 'open';
    default:
      return status;
  }
}

function resourceName(rng: Rng, type: string): string {
  const suffix = rng.hex(6);
  switch (type) {
    case 'repository':
      return rng.pick(REPOSITORIES);
    case 'container_image':
      return `registry.example.com/acme/${rng.pick(['api', 'web', 'worker', 'billing'])}:${rng.int(1, 9)}.${rng.int(0, 30)}.${rng.int(0, 9)}`;
    case 'package':
      return `${rng.pick(CODE_COMPONENTS)}@${rng.int(0, 6)}.${rng.int(0, 20)}.${rng.int(0, 9)}`;
    case 'ec2_instance':
      return `i-0${rng.hex(16)}`;
    case 'lambda_function':
      return `acme-${rng.pick(['ingest', 'notify', 'resize', 'export'])}-${suffix.slice(0, 4)}`;
    case 'ecr_image':
      return `123456789012.dkr.ecr.eu-west-1.amazonaws.example.com/acme-${rng.pick(['api', 'jobs'])}:${suffix}`;
    case 'endpoint':
      return `LT-${suffix.toUpperCase()}`;
    case 'virtual_machine':
      return `vm-${rng.pick(['prod', 'stg'])}-${suffix}`;
    case 'application':
      return rng.pick(['Customer portal', 'Admin console', 'Public API', 'Partner SFTP']);
    default:
      return `srv-${rng.pick(['prod', 'stg', 'dev'])}-${suffix}.example.internal`;
  }
}

export async function generateVulnerabilities(ctx: Ctx): Promise<void> {
  const org = ctx.organizationId;
  const w = ctx.writer;
  const span = 730 * DAY_MS;
  for (let i = 0; i < ctx.plan.vulnerabilities; i++) {
    const rng = ctx.seeder.rng(NS.vulnerability, i);
    const source = i < VULNERABILITY_SOURCES.length ? VULNERABILITY_SOURCES[i] : rng.weighted(SOURCE_WEIGHTS);
    const status: Status = i < VULNERABILITY_STATUSES.length ? VULNERABILITY_STATUSES[i] : rng.weighted(STATUS_WEIGHTS);
    const severity: Severity = i < SEVERITIES.length ? SEVERITIES[i] : rng.weighted(SEVERITY_WEIGHTS);
    const family = SOURCE_FAMILY[source];
    const hasCve = source === 'sonarcloud' ? rng.chance(0.2) : family === 'mixed' ? rng.chance(0.5) : rng.chance(0.75);
    const key = findingKey(i, hasCve);
    const id = ctx.ids.at(NS.vulnerability, i);
    const component = rng.pick(family === 'host' ? HOST_COMPONENTS : family === 'cloud' ? CLOUD_COMPONENTS : CODE_COMPONENTS);
    const title = hasCve
      ? `${rng.pick(family === 'host' || family === 'cloud' ? HOST_WEAKNESSES : WEAKNESSES)} in ${component}`
      : rng.pick(NON_CVE_TITLES);
    const cveId = hasCve ? key : source !== 'sonarcloud' && rng.chance(0.1) ? `CVE-${rng.int(2019, 2025)}-${rng.int(1000, 49999)}` : '';
    // skewed towards recent findings; closed ones are older on average
    const age = rng.next() ** (status === 'closed' ? 0.7 : 1.6) * span;
    const firstSeen = Math.floor((ctx.now - DAY_MS - age) / 1000) * 1000;
    const [low, high] = CVSS[severity];
    const fix = rng.weighted([
      ['yes', 65],
      ['no', 25],
      ['null', 10],
    ] as const);
    const byPerson = source === 'api' || source === 'import';
    const modified = rng.chance(0.6);
    const count =
      i < VULNERABILITY_STATUSES.length ? Math.max(1, rng.weighted(RESOURCE_COUNT_WEIGHTS)) : rng.weighted(RESOURCE_COUNT_WEIGHTS);
    w.add('vulnerabilities', {
      id,
      organization_id: org,
      source,
      finding_key: key,
      title,
      status,
      severity,
      cve_id: cveId,
      fix_available: fix === 'null' ? null : fix,
      description: `${title}${hasCve ? ` (${key})` : ''} reported by ${source} on ${count === 1 ? 'one resource' : `${count} resources`}. ${severity === 'critical' || severity === 'high' ? 'Exploitation could expose production systems.' : 'Impact is limited but should be fixed within SLA.'}`,
      remediation: rng.pick(REMEDIATIONS),
      steps_to_reproduce:
        family === 'code' || family === 'mixed'
          ? rng.chance(0.4)
            ? `1. Check out the affected revision.\n2. Run the ${source} scan locally.\n3. Observe the finding for ${component}.`
            : null
          : null,
      first_seen: firstSeen,
      last_scanned_on: source === 'api' ? null : rng.time(Math.max(firstSeen, ctx.now - 3 * DAY_MS), ctx.now),
      cvss_score: Math.round((low + rng.next() * (high - low)) * 10) / 10,
      sla: SLA[severity],
      report_link: rng.chance(0.3) ? `https://scanner.example.com/${source.toLowerCase()}/findings/${key}` : null,
      added_by: byPerson ? personId(ctx, rng) : null,
      added_on: firstSeen,
      last_modified_by: modified && rng.chance(0.4) ? personId(ctx, rng) : null,
      modified_on: modified ? rng.time(firstSeen, ctx.now) : null,
    });
    const types = RESOURCE_TYPES[family];
    for (let r = 0; r < count; r++) {
      const type = rng.pick(types);
      w.add('vulnerability_resources', {
        id: ctx.ids.next(NS.vulnerabilityResource),
        organization_id: org,
        vulnerability_id: id,
        name: resourceName(rng, type),
        type,
        tags: json(rng.sample(RESOURCE_TAGS, rng.int(0, 3))),
        first_seen: rng.time(firstSeen, Math.max(firstSeen + 1000, ctx.now - DAY_MS)),
        status: r === 0 && i < VULNERABILITY_STATUSES.length ? status : resourceStatus(rng, status),
      });
    }
    for (const field of ctx.customFields) {
      if (!rng.chance(field.fill)) continue;
      const value = field.fieldType === 'dropdown' ? rng.pick(field.options) : rng.pick(field.samples ?? ['n/a']);
      w.add('custom_field_values', { organization_id: org, custom_field_id: field.id, subject_id: id, value });
    }
    if (rng.chance(0.5)) addPeople(ctx, rng, 'vulnerability', id, 'assignee', 1);
    if (rng.chance(0.15)) addTickets(ctx, rng, 'vulnerability', id, 1);
    if (rng.chance(0.05)) addRiskLinks(ctx, rng, 'vulnerability', id, 1);
    await tick(ctx);
  }
}
