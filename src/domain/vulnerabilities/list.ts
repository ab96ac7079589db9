// The vulnerability list: one keyset page of the organization's findings, newest first.
// Order: firstSeen descending, then vulnerabilityId (source, then finding key) ascending. The
// cursor names the last finding of the previous page and is signed together with the
// organization and the filters, so it cannot be altered or reused with other filters.
// totalCount and the page's plan come from the organization's per-cell counts
// (storage/db/repositories/vulnerabilities/vulnerability-pages.ts), so no request counts findings.
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { cursorKey, openCursor, signCursor } from '../cursor.ts';
import { validationFailed } from '../../shared/errors.ts';
import { cachedResult } from '../result-cache.ts';
import {
  countMatching,
  listVulnerabilityPage,
  loadVulnerabilityCells,
} from '../../storage/db/repositories/vulnerabilities/vulnerability-pages.ts';
import {
  listCustomFieldDefinitions,
  type PagePosition,
  type VulnerabilityFilter,
} from '../../storage/db/repositories/vulnerabilities/vulnerabilities.ts';
import { baseFields, DEFAULT_PAGE_SIZE, mergeCustomFields, type VulnerabilityListField } from './shape.ts';
import type { VulnerabilitySummary } from './schema.ts';

export interface ListVulnerabilitiesInput {
  status?: string[];
  severity?: string[];
  source?: string[];
  fixAvailable?: string[];
  /** page size: 50 or 100 (the route validates) */
  count?: number;
  nextCursor?: string;
  fields?: VulnerabilityListField[];
}

export interface VulnerabilityPage {
  data: VulnerabilitySummary[];
  nextCursor: string | null;
  totalCount: number;
}

const sorted = (values: string[] | undefined) => (values && values.length > 0 ? [...new Set(values)].sort() : undefined);

/** The filters of a request, normalized: each list deduplicated and sorted, an empty list absent. */
export const normalizedFilter = (input: ListVulnerabilitiesInput): VulnerabilityFilter => ({
  statuses: sorted(input.status),
  severities: sorted(input.severity),
  sources: sorted(input.source),
  fixAvailable: sorted(input.fixAvailable),
});

/** What a cursor is bound to: the organization and the normalized filters (not page size or fields). */
export function bindingOf(organizationId: string, filter: VulnerabilityFilter): string {
  const part = (name: string, values: readonly string[] | undefined) => `${name}=${values ? values.join(',') : '*'}`;
  return [
    'vulnerabilities',
    organizationId,
    part('status', filter.statuses),
    part('severity', filter.severities),
    part('source', filter.sources),
    part('fixAvailable', filter.fixAvailable),
  ].join('|');
}

const badCursor = () =>
  validationFailed(
    [{ field: 'nextCursor', message: 'is not a cursor this service issued for these filters; start again without nextCursor' }],
    'The cursor is invalid.',
  );

function positionOf(raw: unknown[] | undefined): PagePosition {
  if (raw?.length !== 3) throw badCursor();
  const [firstSeen, source, findingKey] = raw;
  if (!Number.isSafeInteger(firstSeen) || typeof source !== 'string' || typeof findingKey !== 'string') throw badCursor();
  return { firstSeen: firstSeen as number, source, findingKey };
}

export async function listVulnerabilities({ ctx, input }: { ctx: Context; input: ListVulnerabilitiesInput }): Promise<VulnerabilityPage> {
  authorize(ctx.actor, 'vulnerability', 'read');
  // The cursor is part of the input: each page is its own entry. A first page is kept at once (a
  // dashboard asks for it again and again); a page further on only once it is asked for again.
  return cachedResult(
    ctx,
    'vulnerabilities.list',
    input,
    () => compute(ctx, input),
    input.nextCursor === undefined ? 'always' : 'on-repeat',
  );
}

async function compute(ctx: Context, input: ListVulnerabilitiesInput): Promise<VulnerabilityPage> {
  const org = ctx.actor.organizationId;
  const db = ctx.db.kysely;
  const filter = normalizedFilter(input);
  const binding = bindingOf(org, filter);
  const key = await cursorKey(ctx.db, ctx.cursorSecret, ctx.now);
  const after = input.nextCursor === undefined ? undefined : positionOf(openCursor(key, binding, input.nextCursor));
  const size = input.count ?? DEFAULT_PAGE_SIZE;
  const fields = new Set(input.fields ?? []);

  const [cells, definitions] = await Promise.all([
    // the same for every filter and position: a page not seen before still finds them cached
    cachedResult(ctx, 'vulnerabilities.cells', {}, () => loadVulnerabilityCells(db, org)),
    cachedResult(ctx, 'vulnerabilities.customFields', {}, () => listCustomFieldDefinitions(db, org, 'vulnerability')),
  ]);
  // each row comes with its assignees, custom field values and, when shown, resources' count
  const rows = await listVulnerabilityPage(db, org, filter, after, size + 1, cells, fields.has('resourcesCount'));
  const totalCount = countMatching(cells, filter);
  const page = rows.slice(0, size);

  const data = page.map((row) => {
    const item: VulnerabilitySummary = baseFields(row, row.assignees, mergeCustomFields(definitions, row.fieldValues));
    if (fields.has('cvssScore') && row.cvssScore !== null) item.cvssScore = row.cvssScore;
    if (fields.has('resourcesCount')) item.resourcesCount = row.resourcesCount ?? 0;
    if (fields.has('firstSeen')) item.firstSeen = row.firstSeen;
    return item;
  });
  const last = page[page.length - 1];
  const nextCursor = rows.length > size && last ? signCursor(key, binding, [last.firstSeen, last.source, last.findingKey]) : null;
  return { data, nextCursor, totalCount };
}
