// What the policy and evidence read verbs share: the list filter (with its `No Department`
// token), the links every item carries and the fields both resources have. The verbs in
// domain/policies and domain/evidence add only what is their own (and cache their results).
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../../storage/db/schema.ts';
import type { CommonListFields, CommonMappings, CommonOptionalFields, FileEntry, GapStatus } from './schema.ts';
import type { Ticket } from '../../shared/sub-objects.ts';
import { setPresent } from '../set-present.ts';
import type { ArtifactCommon, ArtifactFilter, ArtifactKind, FileEntryRow } from '../../storage/db/repositories/artifacts/artifacts.ts';
import {
  countTickets,
  loadArtifactMappings,
  loadPeople,
  loadSubjectEntities,
  loadSubjectPeople,
  loadTickets,
  type ArtifactMappings,
  type Assignee,
  type Entity,
  type PersonStamp,
  type TicketRow,
} from '../../storage/db/repositories/links.ts';

/** The `departments` value that selects items without a department (compared case-insensitively). */
export const NO_DEPARTMENT = 'No Department';

/**
 * The list filters of the policy and evidence lists, as the route parsed them: the storage filter's
 * list parameters, with `departments` still holding the `No Department` token (toFilter turns it
 * into `withoutDepartment`) and the fields asked for.
 */
export type ArtifactListInput<Status extends string = string, Field extends string = string> = Omit<
  ArtifactFilter,
  'ids' | 'status' | 'withoutDepartment'
> & { status?: Status[]; fields?: Field[] };

export function toFilter(input: ArtifactListInput): ArtifactFilter {
  const isNone = (d: string) => d.toLowerCase() === NO_DEPARTMENT.toLowerCase();
  return {
    status: input.status,
    frameworkIds: input.frameworkIds,
    controlIds: input.controlIds,
    entityIds: input.entityIds,
    isRelevant: input.isRelevant,
    assigneeEmails: input.assigneeEmails,
    approverEmails: input.approverEmails,
    departments: input.departments?.filter((d) => !isNone(d)),
    withoutDepartment: input.departments?.some(isNone),
    nextReviewAtFrom: input.nextReviewAtFrom,
    nextReviewAtTo: input.nextReviewAtTo,
  };
}

/** The links of a set of artifacts, each loaded in one query for the whole set. */
export interface ArtifactLinks {
  assignees: Map<string, Assignee[]>;
  approvers: Map<string, Assignee[]>;
  entities: Map<string, Entity[]>;
  mappings: ArtifactMappings;
  people: Map<string, PersonStamp>;
  tickets: Map<string, TicketRow[]>;
  ticketCounts: Map<string, number>;
}

export interface LinkNeeds {
  mappings?: boolean;
  people?: boolean;
  tickets?: boolean;
  ticketCounts?: boolean;
}

/** Above this many items a list loads the links of the whole organization instead of an ID list. */
const MAX_ID_LIST = 500;

/**
 * Loads the links of `ids` (or of every artifact of the kind when `ids` is undefined): three
 * queries always (assignees, approvers, entities), more only for what `needs` asks. The number
 * of queries never depends on the number of artifacts.
 */
export function loadLinks(ctx: Context, kind: ArtifactKind, ids: string[] | undefined, needs: LinkNeeds): Promise<ArtifactLinks> {
  return loadLinksFrom(ctx.db.kysely, ctx.actor.organizationId, kind, ids, needs);
}

/** loadLinks on a given connection (a write's transaction reads what it has just written). */
export async function loadLinksFrom(
  db: Kysely<Database>,
  org: string,
  kind: ArtifactKind,
  ids: string[] | undefined,
  needs: LinkNeeds,
): Promise<ArtifactLinks> {
  const scope = ids && ids.length <= MAX_ID_LIST ? ids : undefined;
  const none = <V>() => Promise.resolve(new Map<string, V>());
  const [assignees, approvers, entities, mappings, people, tickets, ticketCounts] = await Promise.all([
    loadSubjectPeople(db, org, kind, 'assignee', scope),
    loadSubjectPeople(db, org, kind, 'approver', scope),
    loadSubjectEntities(db, org, kind, scope),
    needs.mappings
      ? loadArtifactMappings(db, org, kind, scope)
      : Promise.resolve({ frameworks: new Map(), requirements: new Map(), controls: new Map() }),
    needs.people ? loadPeople(db, org) : none<PersonStamp>(),
    needs.tickets ? loadTickets(db, org, kind, scope) : none<TicketRow[]>(),
    needs.ticketCounts ? countTickets(db, org, kind) : none<number>(),
  ]);
  return { assignees, approvers, entities, mappings, people, tickets, ticketCounts };
}

export function commonListFields(row: ArtifactCommon, links: ArtifactLinks): CommonListFields {
  const item: CommonListFields = {
    status: row.status,
    assignees: links.assignees.get(row.id) ?? [],
    approvers: (links.approvers.get(row.id) ?? []).map(({ name, email }) => ({ name, email })),
    isRelevant: row.isRelevant,
    nextReviewDate: row.nextReviewDate,
    entities: links.entities.get(row.id) ?? [],
    // stored values are the closed vocabulary (src/shared/vocabulary.ts)
    gapStatus: row.gapStatus as GapStatus,
  };
  // Not one of the four nullable fields: left out when unassigned.
  if (row.department !== null) item.department = row.department;
  return item;
}

/** Optional fields both resources have; they appear only when asked for. */
export const COMMON_OPTIONAL_FIELDS = [
  'mappedFrameworkIds',
  'mappedControlIds',
  'notRelevantReason',
  'effortEstimate',
  'recurrence',
  'source',
  'addedBy',
  'addedOn',
  'lastModifiedBy',
  'modifiedOn',
] as const;
export type CommonOptionalField = (typeof COMMON_OPTIONAL_FIELDS)[number];

/** A person stamp, or undefined when nobody (or an unknown person) is recorded. */
export const stamp = (links: ArtifactLinks, personId: string | null): PersonStamp | undefined =>
  personId === null ? undefined : links.people.get(personId);

export function commonOptionalFields(row: ArtifactCommon, links: ArtifactLinks, fields: ReadonlySet<string>): CommonOptionalFields {
  const out: CommonOptionalFields = {};
  const ask = (f: CommonOptionalField) => fields.has(f);
  if (ask('mappedFrameworkIds')) out.mappedFrameworkIds = (links.mappings.frameworks.get(row.id) ?? []).map((f) => f.frameworkId);
  if (ask('mappedControlIds')) out.mappedControlIds = (links.mappings.controls.get(row.id) ?? []).map((c) => c.controlId);
  if (ask('notRelevantReason')) setPresent(out, 'notRelevantReason', row.notRelevantReason);
  if (ask('effortEstimate')) setPresent(out, 'effortEstimate', row.effortEstimate);
  if (ask('recurrence')) setPresent(out, 'recurrence', row.recurrence);
  if (ask('source')) setPresent(out, 'source', row.source);
  if (ask('addedBy')) setPresent(out, 'addedBy', stamp(links, row.addedBy));
  if (ask('addedOn')) out.addedOn = row.addedOn;
  if (ask('lastModifiedBy')) setPresent(out, 'lastModifiedBy', stamp(links, row.lastModifiedBy));
  if (ask('modifiedOn')) out.modifiedOn = row.modifiedOn;
  return out;
}

/** Which links a set of requested fields needs beyond the default ones. */
export function needsFor(fields: ReadonlySet<string>): LinkNeeds {
  return {
    mappings: fields.has('mappedFrameworkIds') || fields.has('mappedControlIds'),
    people: ['addedBy', 'lastModifiedBy', 'publishedBy'].some((f) => fields.has(f)),
    ticketCounts: fields.has('ticketsCount'),
  };
}

export function commonMappings(row: ArtifactCommon, links: ArtifactLinks): CommonMappings {
  return {
    mappedFrameworks: links.mappings.frameworks.get(row.id) ?? [],
    mappedControls: links.mappings.controls.get(row.id) ?? [],
    mappedRequirements: links.mappings.requirements.get(row.id) ?? [],
  };
}

export const ticketsOf = (links: ArtifactLinks, id: string): Ticket[] =>
  (links.tickets.get(id) ?? []).map((t) => ({ ticketId: t.ticketKey, source: t.source, url: t.url }));

export function fileEntry(row: FileEntryRow, links: ArtifactLinks): FileEntry {
  const entry: FileEntry = { displayName: row.displayName, type: row.type, addedOn: row.addedOn };
  setPresent(entry, 'url', row.url);
  setPresent(entry, 'note', row.note);
  setPresent(entry, 'addedBy', stamp(links, row.addedBy));
  setPresent(entry, 'updatedBy', stamp(links, row.updatedBy));
  setPresent(entry, 'updatedOn', row.updatedOn);
  return entry;
}
