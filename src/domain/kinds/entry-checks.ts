// The checks and references the kinds share: a list that names one value twice, and the
// references an entry makes by key, each with its JSON pointer.
import type { FieldIssue } from '../../shared/errors.ts';
import type { Reference } from './kind.ts';

/** Reports each value of a list met before at `<at>/<index><suffix>`. */
export function repeated(
  values: readonly string[] | undefined,
  at: string,
  message: string | ((value: string) => string),
  issues: FieldIssue[],
  suffix = '',
): void {
  const seen = new Set<string>();
  values?.forEach((v, i) => {
    if (seen.has(v)) issues.push({ field: `${at}/${i}${suffix}`, message: typeof message === 'string' ? message : message(v) });
    seen.add(v);
  });
}

/** The link fields several kinds carry, and the record kind each names: referenced in this order, after the assignees. */
const LINK_LISTS = [
  ['approvers', 'person'],
  ['entities', 'entity'],
  ['controls', 'control'],
  ['requirements', 'requirement'],
  ['risks', 'risk'],
] as const;

type LinkLists = { assignees?: readonly { person: string }[] } & { [F in (typeof LINK_LISTS)[number][0]]?: readonly string[] };

/** Collects an entry's references, their pointers under the entry's `pointer`. */
export function referenceList(pointer: string) {
  const refs: Reference[] = [];
  /** one key (none when null or absent) at `<pointer>/<at>` */
  const one = (record: string, key: string | null | undefined, at: string) => {
    if (key != null) refs.push({ record, key, pointer: `${pointer}/${at}` });
  };
  /** each key of a list at `<pointer>/<at>/<index>` */
  const many = (record: string, list: readonly string[] | undefined, at: string) => {
    list?.forEach((key, i) => {
      refs.push({ record, key, pointer: `${pointer}/${at}/${i}` });
    });
  };
  /** each assignee's person at `<pointer>/assignees/<index>/person` */
  const assignees = (list: readonly { person: string }[] | undefined) => {
    list?.forEach((a, i) => {
      refs.push({ record: 'person', key: a.person, pointer: `${pointer}/assignees/${i}/person` });
    });
  };
  /** the assignees, then the shared link lists (LINK_LISTS) the entry carries */
  const links = (entry: LinkLists) => {
    assignees(entry.assignees);
    for (const [field, record] of LINK_LISTS) many(record, entry[field], field);
  };
  return { refs, one, many, assignees, links };
}

/** Reports an entry's assignees that name one person twice. */
export const repeatedAssignees = (
  assignees: readonly { person: string }[] | undefined,
  pointer: string,
  issues: FieldIssue[],
  message: string | ((person: string) => string) = 'lists this person twice',
) =>
  repeated(
    assignees?.map((a) => a.person),
    `${pointer}/assignees`,
    message,
    issues,
    '/person',
  );

/** Reports an entry's tickets that name one ticket (tracker and ID) twice. */
export const repeatedTickets = (
  tickets: readonly { source: string; ticketId: string }[] | undefined,
  pointer: string,
  issues: FieldIssue[],
) =>
  repeated(
    tickets?.map((t) => `${t.source}\u0000${t.ticketId}`),
    `${pointer}/tickets`,
    'lists this ticket twice',
    issues,
  );
