// Exact small data sets for tests and vulnerability findings, written straight into the database
// (same style as fixtures.ts). Each helper bumps the organization's data version afterwards, as
// every real write does, so cached results computed before the insert are not served after it.
import { bumpingDataVersion } from './fixtures.ts';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/storage/db/connect.ts';
import { bulkInsert } from '../../src/storage/db/bulk-insert.ts';
import type { SubjectType } from '../../src/storage/db/schema.ts';

export const T0 = Date.UTC(2026, 0, 1);

export interface PersonLink {
  personId: string;
  isPrimary?: boolean;
}

export interface TestResourceInput {
  resourceId?: string;
  name: string;
  status: 'ignored' | 'fix_required' | 'passing';
  lastScannedAt?: number | null;
  firstDetected?: number | null;
  tags?: string[];
  region?: string | null;
  service?: string | null;
  accountId?: string | null;
  environment?: string | null;
  link?: string | null;
  description?: string | null;
  assignees?: PersonLink[];
  entityIds?: string[];
}

export interface TestInput {
  id?: string;
  kind?: 'automated' | 'cloud';
  name?: string;
  result: 'ignored' | 'fix_required' | 'passing';
  integrationFailing?: boolean;
  description?: string | null;
  remediation?: string | null;
  notes?: string | null;
  effortEstimate?: string | null;
  ignoreReason?: string | null;
  lastScannedOn?: number | null;
  addedOn?: number;
  modifiedOn?: number | null;
  applicationIds?: string[];
  assignees?: PersonLink[];
  entityIds?: string[];
  tickets?: { key: string; source: string; url: string }[];
  riskIds?: string[];
  resources?: TestResourceInput[];
  history?: { scannedOn: number; status: string }[];
}

export interface VulnerabilityResourceInput {
  name: string;
  type?: string;
  tags?: string[];
  firstSeen?: number;
  status: 'open' | 'closed' | 'acknowledged' | 'ignored' | 'risk';
}

export interface VulnerabilityInput {
  source: string;
  key: string;
  title?: string;
  status: string;
  severity: string;
  cveId?: string;
  fixAvailable?: 'yes' | 'no' | null;
  description?: string | null;
  remediation?: string | null;
  stepsToReproduce?: string | null;
  firstSeen: number;
  lastScannedOn?: number | null;
  cvssScore?: number | null;
  sla?: number | null;
  reportLink?: string | null;
  addedBy?: string | null;
  addedOn?: number;
  lastModifiedBy?: string | null;
  modifiedOn?: number | null;
  assignees?: PersonLink[];
  resources?: VulnerabilityResourceInput[];
  tickets?: { key: string; source: string; url: string }[];
  riskIds?: string[];
  /** custom field ID → value */
  customValues?: Record<string, string>;
}

export function findingFixtures(db: Db, organizationId: string) {
  return bumpingDataVersion(db, organizationId, rawFindingFixtures(db, organizationId));
}

function rawFindingFixtures(db: Db, organizationId: string) {
  const k = db.kysely;
  const org = organizationId;

  const people = async (subjectType: SubjectType, subjectId: string, links: PersonLink[] = []) => {
    let position = 0;
    for (const link of links) {
      await k
        .insertInto('subject_people')
        .values({
          organization_id: org,
          subject_type: subjectType,
          subject_id: subjectId,
          person_id: link.personId,
          role: 'assignee',
          is_primary: link.isPrimary ?? false,
          position: position++,
        })
        .execute();
    }
  };
  const entities = async (subjectType: SubjectType, subjectId: string, entityIds: string[] = []) => {
    for (const entityId of entityIds) {
      await k
        .insertInto('subject_entities')
        .values({ organization_id: org, subject_type: subjectType, subject_id: subjectId, entity_id: entityId })
        .execute();
    }
  };
  const tickets = async (subjectType: SubjectType, subjectId: string, list: { key: string; source: string; url: string }[] = []) => {
    for (const t of list) {
      await k
        .insertInto('tickets')
        .values({
          id: randomUUID(),
          organization_id: org,
          subject_type: subjectType,
          subject_id: subjectId,
          ticket_key: t.key,
          source: t.source,
          url: t.url,
        })
        .execute();
    }
  };
  const risks = async (subjectType: SubjectType, subjectId: string, riskIds: string[] = []) => {
    for (const riskId of riskIds) {
      await k
        .insertInto('risk_links')
        .values({ organization_id: org, risk_id: riskId, subject_type: subjectType, subject_id: subjectId })
        .execute();
    }
  };

  return {
    async application(name: string) {
      const id = randomUUID();
      await k.insertInto('applications').values({ id, organization_id: org, name }).execute();
      return id;
    },
    async risk(name: string) {
      const id = randomUUID();
      await k.insertInto('risks').values({ id, organization_id: org, name }).execute();
      return id;
    },
    async customField(title: string, fieldType: 'text_box' | 'dropdown', options: string[], position: number) {
      const id = randomUUID();
      await k
        .insertInto('custom_fields')
        .values({
          id,
          organization_id: org,
          resource_type: 'vulnerability',
          title,
          field_type: fieldType,
          options: JSON.stringify(options),
          position,
        })
        .execute();
      return id;
    },
    /** A test with its links, flagged resources and history; returns the test ID. */
    async testRecord(input: TestInput) {
      const id = input.id ?? `test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      await k
        .insertInto('tests')
        .values({
          id,
          organization_id: org,
          kind: input.kind ?? 'automated',
          name: input.name ?? `Test ${id}`,
          result: input.result,
          integration_failing: input.integrationFailing ?? false,
          description: input.description ?? null,
          remediation: input.remediation ?? null,
          notes: input.notes ?? null,
          effort_estimate: input.effortEstimate ?? null,
          ignore_reason: input.ignoreReason ?? null,
          last_scanned_on: input.lastScannedOn ?? null,
          added_on: input.addedOn ?? T0,
          modified_on: input.modifiedOn ?? null,
        })
        .execute();
      for (const applicationId of input.applicationIds ?? []) {
        await k.insertInto('test_applications').values({ organization_id: org, test_id: id, application_id: applicationId }).execute();
      }
      await people('test', id, input.assignees);
      await entities('test', id, input.entityIds);
      await tickets('test', id, input.tickets);
      await risks('test', id, input.riskIds);
      for (const r of input.resources ?? []) {
        const rowId = randomUUID();
        await k
          .insertInto('test_resources')
          .values({
            id: rowId,
            organization_id: org,
            test_id: id,
            resource_id: r.resourceId ?? `res_${rowId.slice(0, 8)}`,
            name: r.name,
            status: r.status,
            last_scanned_at: r.lastScannedAt ?? null,
            first_detected: r.firstDetected ?? null,
            tags: JSON.stringify(r.tags ?? []),
            region: r.region ?? null,
            service: r.service ?? null,
            account_id: r.accountId ?? null,
            environment: r.environment ?? null,
            link: r.link ?? null,
            description: r.description ?? null,
          })
          .execute();
        await people('test_resource', rowId, r.assignees);
        await entities('test_resource', rowId, r.entityIds);
      }
      for (const h of input.history ?? []) {
        await k
          .insertInto('test_history')
          .values({ id: randomUUID(), organization_id: org, test_id: id, scanned_on: h.scannedOn, status: h.status })
          .execute();
      }
      return id;
    },
    /** A finding with its links; returns its surrogate row ID. */
    async vulnerability(input: VulnerabilityInput) {
      const id = randomUUID();
      await k
        .insertInto('vulnerabilities')
        .values({
          id,
          organization_id: org,
          source: input.source,
          finding_key: input.key,
          title: input.title ?? `Finding ${input.key}`,
          status: input.status,
          severity: input.severity,
          cve_id: input.cveId ?? '',
          fix_available: input.fixAvailable ?? null,
          description: input.description ?? null,
          remediation: input.remediation ?? null,
          steps_to_reproduce: input.stepsToReproduce ?? null,
          first_seen: input.firstSeen,
          last_scanned_on: input.lastScannedOn ?? null,
          cvss_score: input.cvssScore ?? null,
          sla: input.sla ?? null,
          report_link: input.reportLink ?? null,
          added_by: input.addedBy ?? null,
          added_on: input.addedOn ?? input.firstSeen,
          last_modified_by: input.lastModifiedBy ?? null,
          modified_on: input.modifiedOn ?? null,
        })
        .execute();
      await people('vulnerability', id, input.assignees);
      await tickets('vulnerability', id, input.tickets);
      await risks('vulnerability', id, input.riskIds);
      for (const r of input.resources ?? []) {
        await k
          .insertInto('vulnerability_resources')
          .values({
            id: randomUUID(),
            organization_id: org,
            vulnerability_id: id,
            name: r.name,
            type: r.type ?? 'server',
            tags: JSON.stringify(r.tags ?? []),
            first_seen: r.firstSeen ?? input.firstSeen,
            status: r.status,
          })
          .execute();
      }
      for (const [fieldId, value] of Object.entries(input.customValues ?? {})) {
        await k
          .insertInto('custom_field_values')
          .values({ organization_id: org, custom_field_id: fieldId, subject_id: id, value })
          .execute();
      }
      return id;
    },
    /** Many bare findings at once (no links), for pagination and property tests. */
    async manyVulnerabilities(
      rows: Array<Pick<VulnerabilityInput, 'source' | 'key' | 'status' | 'severity' | 'firstSeen' | 'fixAvailable' | 'cvssScore'>>,
    ) {
      await bulkInsert(
        db,
        'vulnerabilities',
        rows.map((r) => ({
          id: randomUUID(),
          organization_id: org,
          source: r.source,
          finding_key: r.key,
          title: `Finding ${r.key}`,
          status: r.status,
          severity: r.severity,
          cve_id: '',
          fix_available: r.fixAvailable ?? null,
          description: null,
          remediation: null,
          steps_to_reproduce: null,
          first_seen: r.firstSeen,
          last_scanned_on: null,
          cvss_score: r.cvssScore ?? null,
          sla: null,
          report_link: null,
          added_by: null,
          added_on: r.firstSeen,
          last_modified_by: null,
          modified_on: null,
        })),
      );
      return rows.length;
    },
  };
}
