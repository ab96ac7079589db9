// The parts of the get shapes of evidence and tests that come from links, built in memory from
// stored IDs and the names read once per apply (NameLookups), in the order the read verbs give
// them (src/storage/db/repositories/links.ts). An apply builds a changed record's shape before and
// after from these, so its `<kind>.updated` events name the fields as GET does without reading each
// record again.
import type { NameLookups } from '../../storage/db/repositories/program/program-names.ts';
import type {
  Assignee,
  Entity,
  MappedControl,
  MappedFramework,
  MappedRequirement,
  MappedRisk,
  PersonStamp,
} from '../../shared/sub-objects.ts';
export const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const byThen =
  <T>(...keys: ((x: T) => string)[]) =>
  (a: T, b: T) => {
    for (const key of keys) {
      const c = compareStrings(key(a), key(b));
      if (c !== 0) return c;
    }
    return 0;
  };

/** People in list order: the stored order (position), then email; the first assignee is primary. */
export function assigneesOf(lookups: NameLookups, personIds: readonly string[], primary: (index: number) => boolean): Assignee[] {
  const out: Assignee[] = [];
  personIds.forEach((id, i) => {
    const p = lookups.people.get(id);
    if (p) out.push({ name: p.name, email: p.email, isPrimary: primary(i) });
  });
  return out;
}

export function approversOf(lookups: NameLookups, personIds: readonly string[]): PersonStamp[] {
  return personIds.flatMap((id) => {
    const p = lookups.people.get(id);
    return p ? [{ name: p.name, email: p.email }] : [];
  });
}

export function personStampOf(lookups: NameLookups, id: string | null): PersonStamp | undefined {
  if (id === null) return undefined;
  const p = lookups.people.get(id);
  return p && { name: p.name, email: p.email };
}

export function entitiesOf(lookups: NameLookups, ids: readonly string[]): Entity[] {
  return ids
    .flatMap((id) => {
      const name = lookups.entities.get(id);
      return name === undefined ? [] : [{ entityId: id, entityName: name }];
    })
    .sort(
      byThen<Entity>(
        (e) => e.entityName,
        (e) => e.entityId,
      ),
    );
}

export function risksOf(lookups: NameLookups, ids: readonly string[]): MappedRisk[] {
  return ids
    .flatMap((id) => {
      const name = lookups.risks.get(id);
      return name === undefined ? [] : [{ riskId: id, riskName: name }];
    })
    .sort(
      byThen<MappedRisk>(
        (r) => r.riskName,
        (r) => r.riskId,
      ),
    );
}

export function mappingsOf(
  lookups: NameLookups,
  requirementIds: readonly string[],
  controlIds: readonly string[],
): { mappedFrameworks: MappedFramework[]; mappedControls: MappedControl[]; mappedRequirements: MappedRequirement[] } {
  const mappedRequirements = requirementIds
    .flatMap((id) => {
      const r = lookups.requirements.get(id);
      return r
        ? [
            {
              frameworkId: r.frameworkId,
              frameworkName: r.frameworkName,
              requirementId: id,
              requirementCode: r.code,
              requirementName: r.name,
            },
          ]
        : [];
    })
    .sort(
      byThen<MappedRequirement>(
        (r) => r.frameworkName,
        (r) => r.requirementCode,
        (r) => r.requirementId,
      ),
    );
  const frameworks = new Map<string, MappedFramework>();
  for (const r of mappedRequirements)
    if (!frameworks.has(r.frameworkId)) frameworks.set(r.frameworkId, { frameworkId: r.frameworkId, frameworkName: r.frameworkName });
  const mappedControls = controlIds
    .flatMap((id) => {
      const c = lookups.controls.get(id);
      return c ? [{ controlId: id, controlCode: c.code, controlName: c.name }] : [];
    })
    .sort(
      byThen<MappedControl>(
        (c) => c.controlCode,
        (c) => c.controlId,
      ),
    );
  return { mappedFrameworks: [...frameworks.values()], mappedControls, mappedRequirements };
}

export interface TicketValue {
  ticketKey: string;
  source: string;
  url: string;
}

/** Tickets in the normal form: by key, then source, then URL. */
export const sortTickets = <T extends TicketValue>(tickets: readonly T[]): T[] =>
  [...tickets].sort(
    byThen<T>(
      (t) => t.ticketKey,
      (t) => t.source,
      (t) => t.url,
    ),
  );
