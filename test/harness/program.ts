// Shared by the test/http/program-*.test.ts files: the program verbs called as a door would call
// them (a credential stamps the changes), the organization's data versions and a row count of
// every program table, to prove an apply that changes nothing writes nothing.
import { applyProgram, exportProgram, planProgram } from '../../src/domain/program/verbs.ts';
import type { ProgramContext } from '../../src/domain/program/program-context.ts';
import { findOrganizationState } from '../../src/storage/db/repositories/organizations/organizations.ts';
import type { TestServer } from './server.ts';

export function programContext(server: TestServer, credentialId: string, now?: () => number): ProgramContext {
  return { ...server.system, now: now ?? server.system.now, stamp: { kind: 'credential', credentialId } };
}

export function programVerbs(ctx: ProgramContext, organizationId: string) {
  return {
    plan: (document: unknown, prune = false) => planProgram({ ctx, input: { organizationId, document, prune } }),
    apply: (document: unknown, prune = false) => applyProgram({ ctx, input: { organizationId, document, prune } }),
    export: () => exportProgram({ ctx, input: { organizationId } }),
  };
}

export async function dataVersions(server: TestServer, organizationId: string) {
  return (await findOrganizationState(server.database.db.kysely, organizationId))!.dataVersions;
}

const TABLES = [
  'entities',
  'people',
  'risks',
  'custom_fields',
  'frameworks',
  'requirements',
  'controls',
  'control_requirements',
  'control_artifacts',
  'artifact_requirements',
  'subject_people',
  'subject_entities',
  'risk_links',
  'tickets',
  'policies',
  'policy_documents',
  'policy_versions',
  'program_keys',
  'events',
] as const;

/** Row counts of the program's tables for the organization. */
export async function rowCounts(server: TestServer, organizationId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const row = await server.database.db.kysely
      .selectFrom(table as 'entities')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

/** Throws the ServiceError a verb throws, or fails. */
export async function rejection(promise: Promise<unknown>): Promise<{ code: string; details: Array<{ field: string; message: string }> }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code?: string; details?: Array<{ field: string; message: string }> };
    if (e.code) return { code: e.code, details: e.details ?? [] };
    throw error;
  }
  throw new Error('expected the verb to refuse');
}
