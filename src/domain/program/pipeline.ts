// The program pipeline (docs/decisions/program-writes.md, "Program documents"), one phase per file:
// validate (check-document.ts) → resolve keys to IDs and read the organization's current records in
// bulk (resolve-references.ts, read-kinds.ts) → diff (diff.ts) → write only what changed, in bulk,
// in one transaction (write-changes.ts) → events from the diff (pipeline-events.ts). A plan is the
// same pipeline run in a transaction that is rolled back: its computed effects (controls that flip,
// frameworks that move) are the rule's answer over the state the writes would make, so plan and
// apply can never disagree.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { lockOrganization, findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import { loadProgramKeys } from '../../storage/db/repositories/program/program-keys.ts';
import { findAdminEmail, findPersonIdByEmailExact } from '../../storage/db/repositories/organizations/actor-people.ts';
import { ACTOR_PERSON_PREFIX, isActorPerson, type StampActor } from '../people/actor-stamp.ts';
import { notFound, validationFailed } from '../../shared/errors.ts';
import type { ProgramPlan } from './plan-schema.ts';
import type { ProgramDocument } from './document-schema.ts';
import { assertDocumentWithinPlan } from './plan-bounds.ts';
import { keepDigests, settledKinds, type KindDigests } from './settled-kinds.ts';
import type { DocumentCheck } from './precheck.ts';
import type { ProgramContext, ProgramInput } from './program-context.ts';
import { checkDocument } from './check-document.ts';
import { documentKinds, unchangedCounts } from './document-kinds.ts';
import { keyBookFor } from './read-kinds.ts';
import { resolveReferences } from './resolve-references.ts';
import { diffKinds } from './diff.ts';
import { createdEntries } from './change-chunks.ts';
import { writeChanges } from './write-changes.ts';
import { complianceBefore, pipelineEvents } from './pipeline-events.ts';

/** The entries' problems found before the transaction (precheck.ts), thrown where checkDocument throws its own. */
function checkedAlready(document: unknown, checked: DocumentCheck): ProgramDocument {
  if (checked.entries.length > 0) throw validationFailed(checked.entries, 'The program document is invalid.');
  return document as ProgramDocument;
}

/**
 * The person row that will stamp the actor's changes, without writing it (a no-op apply writes no
 * row): actorPersonId gives the same ID when the apply does write.
 */
async function peekActorPersonId(trx: Kysely<Database>, organizationId: string, actor: StampActor): Promise<string> {
  if (actor.kind === 'credential') return `${ACTOR_PERSON_PREFIX}cred_${actor.credentialId}`;
  if (actor.kind === 'service') return `${ACTOR_PERSON_PREFIX}service`;
  const email = (await findAdminEmail(trx, organizationId, actor.adminId)) ?? `${actor.adminId}@admins.invalid`;
  const same = await findPersonIdByEmailExact(trx, organizationId, email);
  return same && !isActorPerson(same) ? same : `${ACTOR_PERSON_PREFIX}admin_${actor.adminId}`;
}

export interface PipelineResult {
  plan: ProgramPlan;
}

/**
 * Runs the pipeline in `trx` for a checked document: every write happens here (a plan rolls the
 * transaction back). Writes nothing at all when nothing changes.
 */
export async function runPipeline(
  trx: Kysely<Database>,
  ctx: ProgramContext,
  input: ProgramInput,
  digests: KindDigests,
  /**
   * `apply` records the events and keeps the digests of what it leaves; a `plan` (whose
   * transaction is rolled back) does neither: its answer is the changes and effects, never the
   * events, and building them was more than half of a large plan's time in the write lock.
   */
  mode: 'plan' | 'apply',
): Promise<PipelineResult> {
  const org = input.organizationId;
  const organization = await findOrganization(trx, org);
  if (!organization) throw notFound('Organization');
  // The organization's plan bounds every door alike, before the write lock is waited for.
  const orgPlan = new Set(organization.plan);
  assertDocumentWithinPlan(input.document, orgPlan);
  await lockOrganization(trx, org);

  // Validate.
  const settled = await settledKinds(trx, org, digests);
  const doc = input.checked ? checkedAlready(input.document, input.checked) : checkDocument(input.document, settled);
  const now = ctx.now();
  const kinds = documentKinds(doc, settled);
  if (kinds.active.length === 0) {
    const counts = Object.fromEntries(kinds.present.map((k) => [k.name, unchangedCounts(kinds, k)]));
    return { plan: { changed: false, counts, changes: [], effects: { controls: [], frameworks: [] } } };
  }

  // Resolve and read.
  const book = keyBookFor(org, await loadProgramKeys(trx, org));
  const current = await resolveReferences(trx, org, book, kinds, input.prune);

  // Diff.
  const actorId = await peekActorPersonId(trx, org, ctx.stamp);
  const nctx = { now, actorKey: book.keyOf('person', actorId), index: 0 };
  const { counts, changes, planned } = await diffKinds(kinds, current, book, nctx, input.prune);
  const plan: ProgramPlan = { changed: changes.size > 0, counts, changes: planned, effects: { controls: [], frameworks: [] } };
  if (!plan.changed) return { plan };

  // Write: only what changed.
  const touched = kinds.present.filter((k) => changes.has(k.name));
  const before = await complianceBefore(trx, org, touched, changes);
  const created = createdEntries(kinds, nctx);
  const wctx = await writeChanges(trx, ctx, org, book, kinds, touched, changes, nctx, created, mode);

  // Events, in the same transaction.
  await pipelineEvents(wctx, { touched, changes, created, before, orgPlan, mode }, plan);
  if (mode === 'apply') await keepDigests(trx, org, digests);
  return { plan };
}
