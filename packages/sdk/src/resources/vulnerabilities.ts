// GET /v1/vulnerabilities (cursor-paged), GET/PATCH /v1/vulnerabilities/{vulnerabilityId},
// POST /v1/vulnerabilities
import type {
  CreateVulnerabilityBody,
  GetVulnerabilityQuery,
  ListVulnerabilitiesQuery,
  ListVulnerabilitiesResponse,
  UpdateVulnerabilityBody,
} from '../generated/api.ts';
import { PagedList } from '../pagination.ts';
import { send, type ClientContext, type RequestOptions, type WithResponse, type WriteOptions } from './operation.ts';

export type VulnerabilityListQuery = Omit<ListVulnerabilitiesQuery, 'nextCursor'>;
export type VulnerabilityPage = WithResponse<ListVulnerabilitiesResponse>;

/** The page size `list()` asks for unless told otherwise: the largest, so a walk costs the fewest requests against the rate limit. */
export const DEFAULT_WALK_PAGE_SIZE = 100;

export class Vulnerabilities {
  readonly #ctx: ClientContext;
  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
  }

  /**
   * Every matching finding, page after page: `for await (const v of client.vulnerabilities.list(q))`
   * or `.toArray({ limit })`, or `.pages()` for the pages themselves. `count` (50 or 100) is the
   * page size, 100 by default. Each page is one request, retried like any other.
   */
  list(
    query: VulnerabilityListQuery = {},
    options?: RequestOptions,
  ): PagedList<ListVulnerabilitiesResponse['data'][number], VulnerabilityPage> {
    const base = { ...query, count: query.count ?? DEFAULT_WALK_PAGE_SIZE };
    return new PagedList((nextCursor) => this.listPage({ ...base, nextCursor }, options));
  }

  /** One page; pass the previous page's `meta.nextCursor` (with the same filters) for the next. */
  listPage(query?: ListVulnerabilitiesQuery, options?: RequestOptions): Promise<VulnerabilityPage> {
    return send(this.#ctx, 'listVulnerabilities', { query, options });
  }

  /** `vulnerabilityId` as the service returns it (`api%23VUL-0001`); the decoded form (`api#VUL-0001`) works too. */
  get(vulnerabilityId: string, query?: GetVulnerabilityQuery, options?: RequestOptions) {
    return send(this.#ctx, 'getVulnerability', { params: { vulnerabilityId }, query, options });
  }

  /** Creates a finding (source `api`); 201 with the finding as `get` returns it. */
  create(body: CreateVulnerabilityBody, options?: WriteOptions) {
    return send(this.#ctx, 'createVulnerability', { json: body, options });
  }

  /** Changes `assigneeEmail`, `reportLink` (`""` clears it) or `customFields`; answers the finding as `get` does. */
  update(vulnerabilityId: string, body: UpdateVulnerabilityBody, options?: WriteOptions) {
    return send(this.#ctx, 'updateVulnerability', { params: { vulnerabilityId }, json: body, options });
  }
}
