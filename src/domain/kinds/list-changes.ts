// What the artifact kinds (evidence, tests, findings) ask of a record change before writing its
// child rows: whether a list field needs writing, and rows grouped by their parent.
import { isDeepStrictEqual } from 'node:util';
import type { KeyedEntry, RecordChange } from './kind.ts';

/** Whether any of the list `fields` must be written: non-empty on a new record, different on an updated one. */
export const changedList = <E extends KeyedEntry>(c: RecordChange<E>, ...fields: (keyof E)[]): boolean =>
  c.action === 'create'
    ? fields.some((f) => ((c.after![f] as unknown[] | undefined) ?? []).length > 0)
    : fields.some((f) => !isDeepStrictEqual(c.before![f], c.after![f]));

/** The rows grouped by `key`, each group in the rows' order. */
export const group = <T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> => {
  const map = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = map.get(k);
    if (list) list.push(r);
    else map.set(k, [r]);
  }
  return map;
};
