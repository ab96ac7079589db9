// The program pipeline (docs/decisions/program-writes.md, "Program documents"): validate → resolve keys to IDs
// → read the organization's current records in bulk → diff → write only what changed, in bulk, in
// one transaction → events from the diff. A plan is the same pipeline run in a transaction that is
// rolled back: its computed effects (controls that flip, frameworks that move) are the rule's
// answer over the state the writes would make, so plan and apply can never disagree.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import type { BaseContext } from '../context.ts';
import type { DataKind } from '../../shared/data-versions.ts';
import { bumpDataVersions, lockOrganization, findOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import {
  deleteProgramKeys,
  insertProgramKeys,
  loadProgramKeys,
  type ProgramKeyRow,
} from '../../storage/db/repositories/program/program-keys.ts';
import { EVENT_CHUNK, lifecycleEvents, recordsOwnCreations } from './lifecycle-events.ts';
import { findAdminEmail, findPersonIdByEmailExact } from '../../storage/db/repositories/organizations/actor-people.ts';
import { ACTOR_PERSON_PREFIX, actorPersonId, isActorPerson, type StampActor } from '../people/actor-stamp.ts';
import { changedFields } from '../events/changes.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import { notFound, validationFailed } from '../../shared/errors.ts';
import { KeyBook, type IdDeriver } from './keys.ts';
import type { CurrentRecord, EventContext, KeyedEntry, ProgramKind, ProgramKindName, RecordChange, WriteContext } from './kind.ts';
import { loadNameLookups, type NameLookups } from '../../storage/db/repositories/program/program-names.ts';
import { PROGRAM_KINDS } from './registry.ts';
import type { KindCounts, PlannedChange, ProgramPlan } from './plan-schema.ts';
import type { ProgramDocument } from './document-schema.ts';
import { IssueList, assertDocumentShape } from './validate.ts';
import { sameData } from './normalize.ts';
import { complianceState, effectsBetween, type ComplianceState } from './effects.ts';
import { assertDocumentWithinPlan, effectsWithinPlan } from './plan-bounds.ts';
import { keepDigests, settledKinds, type KindDigests } from './settled-kinds.ts';
import type { DocumentCheck } from './precheck.ts';
import { shareTheLoop } from '../../shared/event-loop-turns.ts';

/** What the program verbs need: the database and clock, who stamps the changes, and the markers to announce them. */
export interface ProgramContext extends BaseContext {
  /** who the changes are stamped with (actor-stamp.ts): the credential, the administrator, the service */
  stamp: StampActor;
}

export interface ProgramInput {
  organizationId: string;
  /** the parsed document (JSON or YAML): checked here */
  document: unknown;
  /** delete the records of the kinds the document covers that it does not list */
  prune?: boolean;
  /**
   * What precheckDocument (precheck.ts) found of this very document and prune, where it was parsed
   * (a worker thread): the pipeline then answers it instead of checking the entries again.
   */
  checked?: DocumentCheck;
}

/**
 * Changes of a kind checked, written and shown in their kind's own events this many at a time: a
 * created record's normalized entry lives only as long as its chunk, never a whole kind's at once.
 * Not smaller: each chunk's link rows are bulk statements of their own length, which SQLite compiles
 * anew (bench/program-apply.ts: 500 made the SQLite apply 7 % slower, 2,000 does not).
 */
const CHANGE_CHUNK = 2000;

/** The kinds whose changes can move the compliance rule's answers. */
const COMPLIANCE_KINDS: ReadonlySet<ProgramKindName> = new Set(['frameworks', 'controls', 'policies', 'evidence', 'tests']);

type Entries = Record<string, KeyedEntry[] | undefined>;
const entriesIn = (doc: ProgramDocument) => doc as unknown as Entries;

/**
 * Schema, then the rules a schema cannot say: unique keys per kind, each kind's own checks. Throws
 * validation_failed. `settled`: kinds whose entries an earlier apply checked as they are (settled-kinds.ts).
 */
export function checkDocument(document: unknown, settled: ReadonlySet<ProgramKindName> = new Set()): ProgramDocument {
  assertDocumentShape(document, settled);
  const doc = document as ProgramDocument;
  const issues = new IssueList();
  for (const name of Object.keys(doc)) {
    if (name === 'version') continue;
    const kind = PROGRAM_KINDS.find((k) => k.name === name);
    if (!kind) {
      issues.add(`/${name}`, `this service cannot apply ${name} yet`);
      continue;
    }
    if (settled.has(kind.name)) continue;
    const entries = entriesIn(doc)[name] ?? [];
    const seen = new Map<string, number>();
    entries.forEach((entry, i) => {
      const first = seen.get(entry.key);
      if (first !== undefined) issues.add(`/${name}/${i}/key`, `repeats the key "${entry.key}" of /${name}/${first}`);
      else seen.set(entry.key, i);
      kind.check?.(entry, `/${name}/${i}`, issues.issues);
    });
  }
  issues.throwIfAny();
  return doc;
}

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

export function keyBookFor(organizationId: string, rows: readonly ProgramKeyRow[]): KeyBook {
  const derivers = new Map<string, IdDeriver>();
  for (const kind of PROGRAM_KINDS) if (kind.deriveId) derivers.set(kind.record, kind.deriveId);
  return new KeyBook(organizationId, rows, derivers);
}

/** Reads the given kinds' current records into `current`, registering their keys. */
export async function readKinds(
  trx: Kysely<Database>,
  organizationId: string,
  book: KeyBook,
  kinds: readonly ProgramKind[],
): Promise<Map<ProgramKindName, Map<string, CurrentRecord<KeyedEntry>>>> {
  const current = new Map<ProgramKindName, Map<string, CurrentRecord<KeyedEntry>>>();
  for (const kind of kinds) {
    const records = await kind.read({ q: trx, organizationId, keys: book });
    const byKey = new Map<string, CurrentRecord<KeyedEntry>>();
    for (const record of records) {
      byKey.set(record.entry.key, record);
      book.register(kind.record, record.entry.key, record.id);
    }
    current.set(kind.name, byKey);
  }
  return current;
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
  const settled = await settledKinds(trx, org, digests);
  const doc = input.checked ? checkedAlready(input.document, input.checked) : checkDocument(input.document, settled);
  const now = ctx.now();
  const entriesOf = (kind: ProgramKind) => entriesIn(doc)[kind.name];
  const present = PROGRAM_KINDS.filter((k) => entriesOf(k) !== undefined);
  // Settled kinds: unchanged, so neither read nor diffed (their references are still checked
  // against the kinds that are not).
  const active = present.filter((k) => !settled.has(k.name));
  const unchanged = (kind: ProgramKind): KindCounts => ({ created: 0, updated: 0, deleted: 0, unchanged: entriesOf(kind)!.length });
  if (active.length === 0) {
    const counts = Object.fromEntries(present.map((k) => [k.name, unchanged(k)]));
    return { plan: { changed: false, counts, changes: [], effects: { controls: [], frameworks: [] } } };
  }
  const book = keyBookFor(org, await loadProgramKeys(trx, org));

  // Keys the document itself names, per record kind, and the record kinds it references.
  const documentKeys = new Map<string, Set<string>>();
  const addKey = (record: string, key: string) => {
    let set = documentKeys.get(record);
    if (!set) documentKeys.set(record, (set = new Set()));
    set.add(key);
  };
  // What the kinds that are not settled reference: read, so their keys resolve to the records'
  // IDs. A settled kind's references to other kinds are checked below only where those kinds are
  // read; to a kind that is settled too or not in the document, they hold as they did.
  const referenced = new Set<string>();
  for (const kind of present) {
    const isActive = !settled.has(kind.name);
    entriesOf(kind)!.forEach((entry, i) => {
      addKey(kind.record, entry.key);
      for (const own of kind.ownKeys?.(entry) ?? []) addKey(own.record, own.key);
      if (isActive) for (const ref of kind.references(entry, `/${kind.name}/${i}`)) referenced.add(ref.record);
    });
  }
  const needed = new Set<ProgramKindName>();
  for (const k of active) for (const n of k.needs ?? []) needed.add(n);
  const owners = (k: ProgramKind) => {
    if (active.includes(k) || referenced.has(k.record) || needed.has(k.name)) return true;
    // requirements are read with their frameworks
    return k.name === 'frameworks' && referenced.has('requirement');
  };
  const current = await readKinds(trx, org, book, PROGRAM_KINDS.filter(owners));

  // References: to a key of the document or of the organization.
  const issues = new IssueList();
  const presentRecords = new Set(present.map((k) => k.record));
  const activeRecords = new Set(active.map((k) => k.record));
  for (const kind of present) {
    const entries = entriesOf(kind)!;
    const isSettled = settled.has(kind.name);
    for (let i = 0; i < entries.length && !issues.full(); i++) {
      for (const ref of kind.references(entries[i], `/${kind.name}/${i}`)) {
        if (documentKeys.get(ref.record)?.has(ref.key)) continue;
        // a settled kind's reference can have been broken only by a kind this document changes
        if (isSettled && !activeRecords.has(ref.record) && !(ref.record === 'requirement' && activeRecords.has('framework'))) continue;
        // A framework the document lists has the document's requirements only; with prune, a
        // kind the document lists has the document's records only.
        const owner = ref.record === 'requirement' ? ref.key.slice(0, ref.key.indexOf('/')) : undefined;
        if (owner !== undefined && documentKeys.get('framework')?.has(owner)) {
          issues.add(ref.pointer, `names the requirement "${ref.key}", which its framework in the document does not list`);
          continue;
        }
        if (input.prune && presentRecords.has(ref.record)) {
          issues.add(ref.pointer, `names the ${ref.record} "${ref.key}", which the document does not list (prune would delete it)`);
          continue;
        }
        if (book.exists(ref.record, ref.key)) continue;
        issues.add(ref.pointer, `names the ${ref.record} "${ref.key}", which is neither in the document nor in the organization`);
      }
    }
  }
  for (const kind of active) kind.checkAll?.(entriesOf(kind)!, current.get(kind.name)!, issues);
  issues.throwIfAny();

  // Diff.
  const actorId = await peekActorPersonId(trx, org, ctx.stamp);
  const nctx = { now, actorKey: book.keyOf('person', actorId), index: 0 };
  const counts: Record<string, KindCounts> = {};
  const changes = new Map<ProgramKindName, RecordChange<KeyedEntry>[]>();
  const planned: PlannedChange[] = [];
  for (const kind of present) {
    if (settled.has(kind.name)) {
      counts[kind.name] = unchanged(kind);
      continue;
    }
    const kindChanges: RecordChange<KeyedEntry>[] = [];
    const count: KindCounts = { created: 0, updated: 0, deleted: 0, unchanged: 0 };
    const existing = current.get(kind.name)!;
    const listed = new Set<string>();
    for (const [index, entry] of entriesOf(kind)!.entries()) {
      await shareTheLoop();
      nctx.index = index;
      listed.add(entry.key);
      const was = existing.get(entry.key);
      if (!was) {
        // normalized when written, one kind at a time (materialize), not held for every kind at once
        const id = book.idOf(kind.record, entry.key);
        kindChanges.push({ action: 'create', key: entry.key, id, index });
        planned.push({ kind: kind.name, key: entry.key, id: kind.publicId?.(id, entry.key) ?? id, action: 'create' });
        count.created += 1;
        continue;
      }
      const normalized = kind.normalize(entry, was.entry, nctx);
      if (sameData(normalized, was.entry)) {
        count.unchanged += 1;
      } else {
        const after = kind.stampChange ? kind.stampChange(normalized, entry, nctx) : normalized;
        kindChanges.push({ action: 'update', key: entry.key, id: was.id, before: was.entry, after, index });
        planned.push({
          kind: kind.name,
          key: entry.key,
          id: kind.publicId?.(was.id, entry.key) ?? was.id,
          action: 'update',
          fields: changedFields(was.entry, after),
        });
        count.updated += 1;
      }
    }
    if (input.prune) {
      for (const [key, record] of existing) {
        if (listed.has(key) || kind.protectFromPrune?.(record)) continue;
        kindChanges.push({ action: 'delete', key, id: record.id, before: record.entry });
        planned.push({ kind: kind.name, key, id: kind.publicId?.(record.id, key) ?? record.id, action: 'delete' });
        count.deleted += 1;
      }
    }
    counts[kind.name] = count;
    if (kindChanges.length > 0) changes.set(kind.name, kindChanges);
    // what the diff keeps of the kind's current records is the changed ones' `before`: the rest can go
    current.delete(kind.name);
  }
  const plan: ProgramPlan = { changed: changes.size > 0, counts, changes: planned, effects: { controls: [], frameworks: [] } };
  if (!plan.changed) return { plan };

  // Write: only what changed.
  const touched = present.filter((k) => changes.has(k.name));
  const compliance = touched.some(
    (k) => COMPLIANCE_KINDS.has(k.name) && changes.get(k.name)!.some((c) => (k.touchesCompliance ? k.touchesCompliance(c) : true)),
  );
  const before: ComplianceState | undefined = compliance ? await complianceState(trx, org) : undefined;
  const dataKinds = new Set<DataKind>();
  for (const kind of touched) for (const d of kind.dataKinds) dataKinds.add(d);
  await bumpDataVersions(trx, org, [...dataKinds]);
  const stampId = await actorPersonId(trx, org, ctx.stamp);
  book.register('person', nctx.actorKey, stampId);
  const wctx: WriteContext = { db: ctx.db, trx, organizationId: org, now, keys: book, actorPersonId: stampId, plan: mode === 'plan' };

  const keyRows: ProgramKeyRow[] = [];
  for (const kind of touched) {
    for (const change of changes.get(kind.name)!) {
      if (change.action === 'delete') continue;
      if (change.action === 'create') keyRows.push(...book.newKeyRows(kind.record, [change.key]));
      for (const own of kind.ownKeys?.(change.after ?? entriesOf(kind)![change.index!]) ?? []) {
        if (!book.exists(own.record, own.key)) keyRows.push(...book.newKeyRows(own.record, [own.key]));
      }
    }
  }
  await insertProgramKeys(ctx.db, trx, org, keyRows);

  // A created record's normalized entry exists only while its chunk is checked, written or shown
  // in events: the document's entries are the one copy of the program held throughout, and a
  // chunk's copies are garbage before the next chunk's are made.
  const entryOf = (kind: ProgramKind, c: RecordChange<KeyedEntry>): KeyedEntry =>
    c.after ?? kind.normalize(entriesOf(kind)![c.index!], undefined, { ...nctx, index: c.index! });
  // a turn between entries: a chunk of tests with 10,000 resources each is seconds of normalizing
  const materialize = async (kind: ProgramKind, chunk: readonly RecordChange<KeyedEntry>[]) => {
    for (const c of chunk)
      if (c.action === 'create' && c.after === undefined) {
        c.after = entryOf(kind, c);
        await shareTheLoop();
      }
  };
  const release = (chunk: readonly RecordChange<KeyedEntry>[]) => {
    for (const c of chunk) if (c.action === 'create') c.after = undefined;
  };
  for (const kind of touched) {
    const upserts = changes.get(kind.name)!.filter((c) => c.action !== 'delete');
    const problems = new IssueList();
    for (let i = 0; i < upserts.length && !problems.full(); i += CHANGE_CHUNK) {
      const chunk = upserts.slice(i, i + CHANGE_CHUNK);
      await materialize(kind, chunk);
      await kind.checkWrites?.(wctx, chunk, problems);
      // after a problem the chunks left are only checked, so every problem is reported: the
      // transaction is rolled back and what was written goes with it
      if (problems.issues.length === 0) await kind.write(wctx, chunk);
      release(chunk);
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

  // Events, in the same transaction: each kind's own, then the computed ones.
  // Per kind: its own events, then its records' created and deleted events (lifecycle-events.ts).
  let names: Promise<NameLookups> | undefined;
  const ectx: EventContext = { ...wctx, names: () => (names ??= loadNameLookups(trx, org)) };
  const events: NewEvent[] = [];
  let afterState: Promise<ComplianceState> | undefined;
  const stateAfter = () => (afterState ??= complianceState(trx, org));
  // Recorded kind by kind and a chunk at a time (the numbers are consecutive all the same), so an
  // apply holds one chunk of events at a time. A plan records none (see `mode`).
  for (const kind of mode === 'apply' ? touched : []) {
    const all = changes.get(kind.name)!;
    // a kind's own events are of updates, and of creations only where its kind records them itself
    const owns = recordsOwnCreations(kind);
    const shown = owns ? all : all.filter((c) => c.action !== 'create');
    if (kind.events)
      for (let i = 0; i < shown.length; i += CHANGE_CHUNK) {
        const chunk = shown.slice(i, i + CHANGE_CHUNK);
        if (owns) await materialize(kind, chunk);
        const own = await kind.events(ectx, chunk);
        release(chunk);
        for (let j = 0; j < own.events.length; j += EVENT_CHUNK) await recordEvents(trx, org, own.events.slice(j, j + EVENT_CHUNK));
        await shareTheLoop();
      }
    await lifecycleEvents(
      wctx,
      kind,
      all,
      (c) => entryOf(kind, c),
      async () => (await stateAfter()).frameworks,
      async (chunk) => void (await recordEvents(trx, org, chunk)),
    );
  }
  if (before) {
    const after = await stateAfter();
    const effects = effectsBetween(before, after);
    const shown = effectsWithinPlan(effects, orgPlan);
    plan.effects = {
      controls: shown.controls.map((c) => ({ ...c, key: book.keyOf('control', c.controlId) })),
      frameworks: shown.frameworks.map((f) => ({ ...f, key: book.keyOf('framework', f.frameworkId) })),
    };
    // Recorded whatever the plan (they are the organization's history); the events feed and
    // webhooks show them only within the plan (events/plan-bounds.ts).
    for (const c of effects.controls)
      events.push({ type: 'control.status_changed', resourceId: c.controlId, occurredAt: now, data: { before: c.before, after: c.after } });
    for (const f of effects.frameworks)
      events.push({
        type: 'framework.progress_changed',
        resourceId: f.frameworkId,
        occurredAt: now,
        data: { before: f.before, after: f.after },
      });
  }
  if (mode === 'apply') await recordEvents(trx, org, events);
  if (mode === 'apply') await keepDigests(trx, org, digests);
  return { plan };
}
