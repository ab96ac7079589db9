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

/** Collects an entry's references, their pointers under the entry's `pointer`. */
export function referenceList(pointer: string) {
  const refs: Reference[] = [];
  return {
    refs,
    /** one key (none when null or absent) at `<pointer>/<at>` */
    one(record: string, key: string | null | undefined, at: string) {
      if (key != null) refs.push({ record, key, pointer: `${pointer}/${at}` });
    },
    /** each key of a list at `<pointer>/<at>/<index>` */
    many(record: string, list: readonly string[] | undefined, at: string) {
      list?.forEach((key, i) => {
        refs.push({ record, key, pointer: `${pointer}/${at}/${i}` });
      });
    },
    /** each assignee's person at `<pointer>/assignees/<index>/person` */
    assignees(list: readonly { person: string }[] | undefined) {
      list?.forEach((a, i) => {
        refs.push({ record: 'person', key: a.person, pointer: `${pointer}/assignees/${i}/person` });
      });
    },
  };
}
