// The `changes` of an update event: the fields of two versions of a resource's get shape that
// differ, each with its value before and after (a field absent on one side has no value there).
import { isDeepStrictEqual } from 'node:util';

export type Changes = Record<string, { before?: unknown; after?: unknown }>;

export function changedFields(before: object, after: object): Changes {
  const changes: Changes = {};
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  for (const field of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (isDeepStrictEqual(b[field], a[field])) continue;
    const change: { before?: unknown; after?: unknown } = {};
    if (b[field] !== undefined) change.before = b[field];
    if (a[field] !== undefined) change.after = a[field];
    changes[field] = change;
  }
  return changes;
}
