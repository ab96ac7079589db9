// What one kind of record of a program document implements (issue 25): the contract between the
// kinds (src/domain/<resource>/program-kind.ts) and the engine that runs them
// (src/domain/program/pipeline.ts: validate → resolve keys → read current → diff → write → events,
// the same for every kind). It sits below both: it names no resource, and the events a kind
// records are typed where they are defined (src/domain/events/kind-events.ts).
import type { Kysely } from 'kysely';
import type { TSchema } from 'typebox';
import type { Database } from '../../storage/db/schema.ts';
import type { Db } from '../../storage/db/connect.ts';
import type { DataKind } from '../../shared/data-versions.ts';
import type { Resource } from '../../shared/vocabulary.ts';
import type { FieldIssue } from '../../shared/errors.ts';
import type { KeyBook } from './keys.ts';
import type { NameLookups } from '../../storage/db/repositories/program/program-names.ts';

/** The properties of a program document that hold records, in dependency order. */
export const PROGRAM_KIND_NAMES = [
  'entities',
  'people',
  'risks',
  'customFields',
  'frameworks',
  'controls',
  'policies',
  'evidence',
  'tests',
  'vulnerabilities',
] as const;
export type ProgramKindName = (typeof PROGRAM_KIND_NAMES)[number];

/** An entry of a document: any kind's entry has its key. */
export interface KeyedEntry {
  key: string;
}

/** A reference from an entry to another record by key: `record` is the referenced record kind (KeyBook kinds). */
export interface Reference {
  record: string;
  key: string;
  /** JSON pointer of the referencing value, from the document's root */
  pointer: string;
}

/** One of the organization's current records, as a document entry. */
export interface CurrentRecord<E extends KeyedEntry> {
  id: string;
  entry: E;
}

export interface ReadContext {
  q: Kysely<Database>;
  organizationId: string;
  keys: KeyBook;
}

/** How an apply fills what an entry leaves out. */
export interface NormalizeContext {
  now: number;
  /** the key of the person who stamps this apply (KeyBook key of the actor's person row) */
  actorKey: string;
  /** the entry's place in its kind's list in the document (a default order) */
  index: number;
}

export type RecordAction = 'create' | 'update' | 'delete';

/** A record the diff found different: its document entry before (current) and after (document). */
export interface RecordChange<E extends KeyedEntry> {
  action: RecordAction;
  key: string;
  id: string;
  before?: E;
  after?: E;
  /** a create's or update's position in the document's list of its kind (for messages naming its JSON pointer) */
  index?: number;
}

export interface WriteContext {
  db: Db;
  trx: Kysely<Database>;
  organizationId: string;
  now: number;
  keys: KeyBook;
  /** the person row that stamps this apply's changes (actor-stamp.ts), made before any kind writes */
  actorPersonId: string;
  /**
   * A plan's writes, rolled back: a kind may leave out rows that nothing the plan answers reads
   * (neither the compliance rule, nor a later kind's checks, nor, in a plan, any event).
   */
  plan: boolean;
}

/** What a kind's events are built with: the apply's writes are all done. */
export interface EventContext extends WriteContext {
  /** the names of the records the changed ones link to, as every write left them: read once per apply, when first asked */
  names(): Promise<NameLookups>;
}

/** Where checks report problems: `field` is a JSON pointer into the document. */
export interface IssueSink {
  add(field: string, message: string): void;
}

/**
 * What a kind's changes record: its own events, and the artifacts whose state under the compliance
 * rule may have moved. The contract leaves their types open (they name every resource's GET shape);
 * src/domain/events/kind-events.ts fills them in for the kinds and the engine.
 */
export interface KindEvents<Event = unknown, Change = unknown> {
  events: Event[];
  artifactChanges?: Change[];
}

export interface ProgramKind<E extends KeyedEntry = KeyedEntry, Recorded extends KindEvents = KindEvents> {
  /** the document's property */
  name: ProgramKindName;
  /** the record kind its keys are stored under (program_keys.kind) and references name */
  record: string;
  /** the write scopes a credential needs to apply entries of this kind */
  resources: readonly Resource[];
  /**
   * The entry fields that link to records of another plan resource (plan-bounds.ts): a plan that
   * excludes that resource refuses a document naming the field and leaves it out of an export.
   */
  links?: Readonly<Record<string, Resource>>;
  /** the data kinds its writes change (data-versions.ts) */
  dataKinds: readonly DataKind[];
  /** the schema of one entry */
  schema: TSchema;
  /** kinds whose records this one's read needs registered first (controls name requirements: frameworks) */
  needs?: readonly ProgramKindName[];
  /** derives a new record's ID from its key (default: derivedRecordId) */
  deriveId?: (organizationId: string, key: string) => string;
  /**
   * The organization's records of this kind as document entries, references as keys (keys.keyOf),
   * in export order. Sub-records with their own keys (a framework's requirements) register them
   * in `keys` here. Plan, apply and export all read through this, so they agree.
   */
  read(ctx: ReadContext): Promise<CurrentRecord<E>[]>;
  /** Sub-records of an entry that references can name (a framework's requirements): record kind and key. */
  ownKeys?(entry: E): { record: string; key: string }[];
  /** The entry as it would be stored: what it leaves out taken from the current record, or defaults for a new one. */
  normalize(entry: E, current: E | undefined, ctx: NormalizeContext): E;
  /** Stamps a changed record with who changed it and when, unless the entry says so itself. */
  stampChange?(entry: E, given: E, ctx: NormalizeContext): E;
  /** Checks beyond the schema (duplicates inside an entry, value rules); `pointer` is the entry's. */
  check?(entry: E, pointer: string, issues: FieldIssue[]): void;
  /** Checks over all entries against the organization's current records (a person's email unique among all people). */
  checkAll?(entries: readonly E[], current: ReadonlyMap<string, CurrentRecord<E>>, issues: IssueSink): void;
  /** The ID as the API shows it, when it differs from the stored one (a finding's `<source>%23<key>`). */
  publicId?(id: string, key: string): string;
  /** The keys an entry references. */
  references(entry: E, pointer: string): Reference[];
  /**
   * Checks against what the apply has written before this kind (a finding's dropdown value against
   * its field's options, which the document can define). Called before the kind writes, a chunk of
   * changes at a time, each report kept.
   */
  checkWrites?(ctx: WriteContext, changes: readonly RecordChange<E>[], issues: IssueSink): Promise<void>;
  /**
   * Writes the changes in bulk, inside the apply's transaction; created records first, deletions
   * last. Called a chunk of records at a time (the pipeline's CHANGE_CHUNK), so a write touches only
   * the rows of the records it is given.
   */
  write(ctx: WriteContext, changes: readonly RecordChange<E>[]): Promise<void>;
  /** The events of the changes (after `write`), in the changes' order; called a chunk of changes at a time, as `write`. */
  events?(ctx: EventContext, changes: readonly RecordChange<E>[]): Promise<Recorded> | Recorded;
  /**
   * Whether a change can move the compliance rule's answers (a control's status, a framework's
   * progress); default: any change of a compliance kind can. A plan or apply that changes none
   * skips computing the effects.
   */
  touchesCompliance?(change: RecordChange<E>): boolean;
  /** Records of this kind a prune must never delete (an uploaded attachment's evidence record keeps its upload). */
  protectFromPrune?(current: CurrentRecord<E>): boolean;
}
