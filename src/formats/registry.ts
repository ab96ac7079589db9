// What the two format registries (src/formats/scanners/formats.ts, src/formats/checks/formats.ts)
// do with their lists the same way: look a format up by the name a request gives, name the known
// ones in a refusal of an unknown name, and list them in a sentence for the route's prose.
import type { FieldIssue } from '../shared/errors.ts';

export interface NamedRegistry<E extends { name: string }> {
  readonly names: readonly E['name'][];
  find(name: string): E | undefined;
  /** the detail of an unknown format name: names `format` and lists the known ones */
  unknownIssue(name: string): FieldIssue;
  /** the names as a sentence lists them: `sarif, trivy, … or openvex` */
  namesText(): string;
}

export function namedRegistry<E extends { name: string }>(entries: readonly E[]): NamedRegistry<E> {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const names = entries.map((e) => e.name);
  return {
    names,
    find: (name) => byName.get(name),
    unknownIssue: (name) => ({ field: 'format', message: `must be one of ${names.join(', ')} (found “${name.slice(0, 40)}”)` }),
    namesText: () => (names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`),
  };
}
