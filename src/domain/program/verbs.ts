// The program verbs (issue 25): plan, apply, export. Domain only: no HTTP, no scopes (each door
// authorizes first: the HTTP door needs the write scope of every kind the document touches, see
// scopesForDocument; `cds` and the console act for the organization they name). Each takes
// `{ ctx, input }`; `ctx` is a ProgramContext (program-context.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import type { Resource } from '../auth/scopes.ts';
import { findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import { loadProgramKeys } from '../../storage/db/repositories/program/program-keys.ts';
import { notFound, validationFailed } from '../../shared/errors.ts';
import { PROGRAM_KIND_NAMES, type KeyedEntry, type ProgramKindName } from '../kinds/kind.ts';
import { assertDocumentShape } from './validate.ts';
import { digestKinds, type KindDigests } from './settled-kinds.ts';
import { PROGRAM_KINDS } from './registry.ts';
import { entryWithinPlan, kindWithinPlan } from './plan-bounds.ts';
import { PROGRAM_FORMAT_VERSION, type ProgramDocument } from './document-schema.ts';
import type { ProgramPlan } from './plan-schema.ts';
import { runPipeline } from './pipeline.ts';
import { keyBookFor, readKinds } from './read-kinds.ts';
import type { ProgramContext, ProgramInput } from './program-context.ts';

export type { ProgramContext, ProgramInput } from './program-context.ts';

/**
 * Checks the document's outline before any transaction starts (a document that is not one never
 * waits for the write lock), and digests its kinds (settled-kinds.ts). The entries are checked in
 * the pipeline, all but those of the kinds it finds settled; or, when the door checked the
 * document where it parsed it (`input.checked`, precheck.ts), their problems are thrown there.
 */
function outlineAndDigests(input: ProgramInput): KindDigests {
  if (input.checked) {
    if (input.checked.outline.length > 0) throw validationFailed(input.checked.outline, 'The program document is invalid.');
    return input.checked.digests;
  }
  assertDocumentShape(input.document, new Set(PROGRAM_KIND_NAMES));
  return digestKinds(input.document, input.prune === true);
}

/** Thrown through a plan's transaction to roll it back with the plan. */
class PlanRollback extends Error {
  readonly plan: ProgramPlan;
  constructor(plan: ProgramPlan) {
    super('plan: rolled back');
    this.plan = plan;
  }
}

/** What an apply would do, without doing it. Throws validation_failed (every problem, JSON pointers) or not_found. */
export async function planProgram({ ctx, input }: { ctx: ProgramContext; input: ProgramInput }): Promise<ProgramPlan> {
  const digests = outlineAndDigests(input);
  try {
    await ctx.db.kysely.transaction().execute(async (trx) => {
      const { plan } = await runPipeline(trx, ctx, input, digests, 'plan');
      throw new PlanRollback(plan);
    });
  } catch (error) {
    if (error instanceof PlanRollback) return error.plan;
    throw error;
  }
  throw new Error('unreachable');
}

/**
 * Applies the document in `trx` (a door that owns the transaction, such as the HTTP door under
 * runIdempotent). The caller announces the change after the commit (announceOrganizationChange)
 * when `plan.changed`.
 */
export async function applyProgramIn(trx: Kysely<Database>, ctx: ProgramContext, input: ProgramInput): Promise<ProgramPlan> {
  return (await runPipeline(trx, ctx, input, outlineAndDigests(input), 'apply')).plan;
}

/** Applies the document in one transaction, all or nothing, and answers the plan it carried out. */
export async function applyProgram({ ctx, input }: { ctx: ProgramContext; input: ProgramInput }): Promise<ProgramPlan> {
  const digests = outlineAndDigests(input);
  const { plan } = await ctx.db.kysely.transaction().execute((trx) => runPipeline(trx, ctx, input, digests, 'apply'));
  if (plan.changed) await announceOrganizationChange(ctx, input.organizationId);
  return plan;
}

/**
 * The organization's program within its plan, kind by kind in dependency order: each kind is read in bulk when
 * its turn comes, so a writer can stream the document out without holding every kind at once.
 * (Keys of earlier kinds are all a later kind needs, and those are small.)
 */
export async function* exportProgramKinds({
  ctx,
  input,
}: {
  ctx: Pick<ProgramContext, 'db'>;
  input: { organizationId: string };
}): AsyncGenerator<[ProgramKindName, KeyedEntry[]]> {
  const org = input.organizationId;
  // PostgreSQL: one read-only snapshot (REPEATABLE READ), so a write committed meanwhile is either
  // wholly in the export or not at all. SQLite reads without a transaction: its transactions take
  // the write lock (BEGIN IMMEDIATE), and it shares one connection with the caller's other reads.
  const trx =
    ctx.db.dialect === 'postgres'
      ? await ctx.db.kysely.startTransaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute()
      : undefined;
  try {
    const q = trx ?? ctx.db.kysely;
    const organization = await findOrganization(q, org);
    if (!organization) throw notFound('Organization');
    // The plan bounds every export alike (plan-bounds.ts): the kinds it excludes are left out,
    // and so are the links of the other kinds to records of those.
    const plan = new Set(organization.plan);
    const book = keyBookFor(org, await loadProgramKeys(q, org));
    for (const kind of PROGRAM_KINDS) {
      // read even when left out: a later kind's read may need its keys registered (kind.needs)
      const current = await readKinds(q, org, book, [kind]);
      if (kindWithinPlan(kind, plan))
        yield [kind.name, [...current.get(kind.name)!.values()].map((r) => entryWithinPlan(kind, r.entry, plan))];
    }
  } finally {
    await trx?.rollback().execute();
  }
}

/** The organization's program as one document (exportProgramKinds, gathered). */
export async function exportProgram({
  ctx,
  input,
}: {
  ctx: Pick<ProgramContext, 'db'>;
  input: { organizationId: string };
}): Promise<ProgramDocument> {
  const doc: Record<string, unknown> = { version: PROGRAM_FORMAT_VERSION };
  for await (const [name, entries] of exportProgramKinds({ ctx, input })) doc[name] = entries;
  return doc as ProgramDocument;
}

/** The write scopes a credential needs to apply the document: those of every kind it lists (checked before anything else). */
export function scopesForDocument(document: unknown): Resource[] {
  const needed = new Set<Resource>();
  if (document && typeof document === 'object') {
    for (const kind of PROGRAM_KINDS)
      if ((document as Record<string, unknown>)[kind.name] !== undefined) for (const r of kind.resources) needed.add(r);
  }
  return [...needed];
}
