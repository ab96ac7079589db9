// Small, explicit data sets written straight into the database, for tests that need to know
// exactly what is stored (the demo generator is for volume, not for exact expectations).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/storage/db/connect.ts';
import type { ArtifactType } from '../../src/storage/db/schema.ts';
import { bumpDataVersions } from '../../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../../src/shared/data-versions.ts';

const T0 = Date.UTC(2026, 0, 1);

/**
 * Each helper inserts rows and then bumps the organization's data version, as every real write
 * does, so cached results computed before the insert are not served after it.
 */
export function fixtures(db: Db, organizationId: string) {
  return bumpingDataVersion(db, organizationId, rawFixtures(db, organizationId));
}

/** Wraps every helper so that it bumps the organization's data version after it writes. */
export function bumpingDataVersion<T extends Record<string, (...args: any[]) => Promise<unknown>>>(
  db: Db,
  organizationId: string,
  helpers: T,
): T {
  const wrapped = {} as Record<string, unknown>;
  for (const [name, fn] of Object.entries(helpers)) {
    wrapped[name] = async (...args: unknown[]) => {
      const result = await fn(...args);
      await bumpDataVersions(db.kysely, organizationId, DATA_KINDS);
      return result;
    };
  }
  return wrapped as T;
}

function rawFixtures(db: Db, organizationId: string) {
  const k = db.kysely;
  const org = organizationId;
  return {
    async person(name: string, email: string) {
      const id = randomUUID();
      await k.insertInto('people').values({ id, organization_id: org, name, email }).execute();
      return id;
    },
    async entity(name: string) {
      const id = randomUUID();
      await k.insertInto('entities').values({ id, organization_id: org, name }).execute();
      return id;
    },
    async framework(
      name: string,
      opts: { entityIds?: string[]; nextAuditDate?: number | null; addedBy?: string; tsc?: string[]; modifiedOn?: number | null } = {},
    ) {
      const id = randomUUID();
      await k
        .insertInto('frameworks')
        .values({
          id,
          organization_id: org,
          name,
          next_audit_date: opts.nextAuditDate ?? null,
          tsc_selections: JSON.stringify(opts.tsc ?? []),
          added_by: opts.addedBy ?? null,
          added_on: T0,
          last_modified_by: null,
          modified_on: opts.modifiedOn ?? null,
        })
        .execute();
      for (const entityId of opts.entityIds ?? []) {
        await k
          .insertInto('subject_entities')
          .values({ organization_id: org, subject_type: 'framework', subject_id: id, entity_id: entityId })
          .execute();
      }
      return id;
    },
    async requirement(frameworkId: string, code: string) {
      const id = randomUUID();
      await k
        .insertInto('requirements')
        .values({ id, organization_id: org, framework_id: frameworkId, code, name: `Requirement ${code}` })
        .execute();
      return id;
    },
    async control(code: string, opts: { scope?: 'in_scope' | 'out_of_scope'; requirementIds?: string[] } = {}) {
      const id = randomUUID();
      await k
        .insertInto('controls')
        .values({
          id,
          organization_id: org,
          code,
          name: `Control ${code}`,
          description: null,
          domain: 'Access Control',
          function_grouping: 'protect',
          scope: opts.scope ?? 'in_scope',
          out_of_scope_reason: null,
          marked_out_of_scope_by: null,
          questions: '[]',
          added_by: null,
          added_on: T0,
          last_modified_by: null,
          modified_on: null,
        })
        .execute();
      for (const requirementId of opts.requirementIds ?? []) {
        await k
          .insertInto('control_requirements')
          .values({ organization_id: org, control_id: id, requirement_id: requirementId })
          .execute();
      }
      return id;
    },
    async policy(status: string, opts: { isRelevant?: boolean } = {}) {
      const id = randomUUID();
      await k
        .insertInto('policies')
        .values({
          id,
          organization_id: org,
          custom_id: `POL-${id.slice(0, 4)}`,
          name: `Policy ${id.slice(0, 4)}`,
          status,
          department: null,
          is_relevant: opts.isRelevant ?? true,
          not_relevant_reason: null,
          next_review_date: null,
          gap_status: 'no_gaps',
          ai_detected_gaps: '[]',
          policy_behavior: null,
          version_number: null,
          effort_estimate: null,
          recurrence: null,
          source: null,
          requirement_text: null,
          published_by: null,
          published_on: null,
          added_by: null,
          added_on: T0,
          last_modified_by: null,
          modified_on: null,
        })
        .execute();
      return id;
    },
    async evidence(status: string, opts: { isRelevant?: boolean } = {}) {
      const id = randomUUID();
      await k
        .insertInto('evidence')
        .values({
          id,
          organization_id: org,
          name: `Evidence ${id.slice(0, 4)}`,
          status,
          department: null,
          is_relevant: opts.isRelevant ?? true,
          not_relevant_reason: null,
          next_review_date: null,
          gap_status: 'no_gaps',
          gaps: '[]',
          recurrence: null,
          effort_estimate: null,
          source: null,
          collection_method: null,
          requirement_text: null,
          revision_requested_by: null,
          revision_requested_on: null,
          rejection_reason: null,
          added_by: null,
          added_on: T0,
          last_modified_by: null,
          modified_on: null,
        })
        .execute();
      return id;
    },
    async test(result: 'ignored' | 'fix_required' | 'passing', opts: { integrationFailing?: boolean } = {}) {
      const id = `test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      await k
        .insertInto('tests')
        .values({
          id,
          organization_id: org,
          kind: 'automated',
          name: `Test ${id}`,
          result,
          integration_failing: opts.integrationFailing ?? false,
          description: null,
          remediation: null,
          notes: null,
          effort_estimate: null,
          ignore_reason: null,
          last_scanned_on: null,
          added_on: T0,
          modified_on: null,
        })
        .execute();
      return id;
    },
    /** Maps an artifact to controls and to requirements (so to frameworks). */
    async map(type: ArtifactType, artifactId: string, opts: { controlIds?: string[]; requirementIds?: string[] }) {
      for (const controlId of opts.controlIds ?? []) {
        await k
          .insertInto('control_artifacts')
          .values({ organization_id: org, control_id: controlId, artifact_type: type, artifact_id: artifactId })
          .execute();
      }
      for (const requirementId of opts.requirementIds ?? []) {
        await k
          .insertInto('artifact_requirements')
          .values({ organization_id: org, artifact_type: type, artifact_id: artifactId, requirement_id: requirementId })
          .execute();
      }
    },
  };
}
