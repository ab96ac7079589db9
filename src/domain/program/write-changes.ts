// The write phase of the program pipeline (pipeline.ts): only what the diff found changed, in bulk,
// in the pipeline's transaction: the data versions of the kinds touched, the actor's person row,
// the new keys, then each kind's creations and updates a chunk at a time in dependency order, then
// the deletions in the reverse order.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import type { DataKind } from '../../shared/data-versions.ts';
import { bumpDataVersions } from '../../storage/db/repositories/organizations/organizations.ts';
import { deleteProgramKeys, insertProgramKeys, type ProgramKeyRow } from '../../storage/db/repositories/program/program-keys.ts';
import { actorPersonId } from '../people/actor-stamp.ts';
import { shareTheLoop } from '../../shared/event-loop-turns.ts';
import type { KeyBook } from '../kinds/keys.ts';
import type { NormalizeContext, WriteContext } from '../kinds/kind.ts';
import type { ProgramKind } from './registry.ts';
import { IssueList } from './validate.ts';
import type { DocumentKinds } from './document-kinds.ts';
import type { KindChanges } from './diff.ts';
import type { CreatedEntries } from './change-chunks.ts';
import type { ProgramContext } from './program-context.ts';

/** Writes the `touched` kinds' changes; answers the context the kinds wrote with (the events phase's too). */
export async function writeChanges(
  trx: Kysely<Database>,
  ctx: ProgramContext,
  organizationId: string,
  book: KeyBook,
  kinds: DocumentKinds,
  touched: readonly ProgramKind[],
  changes: KindChanges,
  nctx: NormalizeContext,
  created: CreatedEntries,
  mode: 'plan' | 'apply',
): Promise<WriteContext> {
  const org = organizationId;
  const dataKinds = new Set<DataKind>();
  for (const kind of touched) for (const d of kind.dataKinds) dataKinds.add(d);
  await bumpDataVersions(trx, org, [...dataKinds]);
  const stampId = await actorPersonId(trx, org, ctx.stamp);
  book.register('person', nctx.actorKey, stampId);
  const wctx: WriteContext = {
    db: ctx.db,
    trx,
    organizationId: org,
    now: nctx.now,
    keys: book,
    actorPersonId: stampId,
    plan: mode === 'plan',
  };
  await insertProgramKeys(ctx.db, trx, org, newKeyRows(book, kinds, touched, changes));
  for (const kind of touched) {
    const upserts = changes.get(kind.name)!.filter((c) => c.action !== 'delete');
    const problems = new IssueList();
    for (const chunk of created.chunks(kind, upserts)) {
      if (problems.full()) break;
      await created.materialize(kind, chunk);
      await kind.checkWrites?.(wctx, chunk, problems);
      // after a problem the chunks left are only checked, so every problem is reported: the
      // transaction is rolled back and what was written goes with it
      if (problems.issues.length === 0) await kind.write(wctx, chunk);
      created.release(chunk);
      await shareTheLoop();
    }
    problems.throwIfAny();
  }
  for (const kind of [...touched].reverse()) {
    const deletes = changes.get(kind.name)!.filter((c) => c.action === 'delete');
    if (deletes.length === 0) continue;
    await kind.write(wctx, deletes);
    await deleteProgramKeys(
      trx,
      org,
      kind.record,
      deletes.map((c) => c.id),
    );
  }
  return wctx;
}

/** The key rows the created records and their new sub-records (a framework's requirements) need. */
function newKeyRows(book: KeyBook, kinds: DocumentKinds, touched: readonly ProgramKind[], changes: KindChanges): ProgramKeyRow[] {
  const keyRows: ProgramKeyRow[] = [];
  for (const kind of touched) {
    for (const change of changes.get(kind.name)!) {
      if (change.action === 'delete') continue;
      if (change.action === 'create') keyRows.push(...book.newKeyRows(kind.record, [change.key]));
      for (const own of kind.ownKeys?.(change.after ?? kinds.entriesOf(kind)[change.index!]) ?? []) {
        if (!book.exists(own.record, own.key)) keyRows.push(...book.newKeyRows(own.record, [own.key]));
      }
    }
  }
  return keyRows;
}
