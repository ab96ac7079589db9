// Walking a cursor-paged list. The one rule of the spec: request without a cursor, repeat with
// meta.nextCursor until it is null, then compare meta.totalCount with what was collected.
import { PaginationError, TotalCountMismatchError } from './errors.ts';

export interface PageMeta {
  requestId: string;
  nextCursor: string | null;
  totalCount: number;
}

export interface Page<T> {
  data: T[];
  meta: PageMeta;
}

/**
 * Async-iterable over every item of every page; `pages()` walks page by page, `toArray` collects
 * with a cap. Nothing is requested until iteration starts, and each walk starts from the first page.
 */
export class PagedList<T, P extends Page<T> = Page<T>> implements AsyncIterable<T> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<P>;

  constructor(fetchPage: (cursor: string | undefined) => Promise<P>) {
    this.#fetchPage = fetchPage;
  }

  /** Every page in order. Throws PaginationError when the service repeats a cursor or sends an empty page before the end. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      const page = await this.#fetchPage(cursor);
      yield page;
      const next = page.meta.nextCursor;
      if (next === null) return;
      if (page.data.length === 0) throw new PaginationError('the service sent an empty page with a next cursor');
      if (seen.has(next)) throw new PaginationError('the service sent a cursor it had sent before');
      seen.add(next);
      cursor = next;
    }
  }

  /**
   * Every item. After the last page, the number of items yielded is checked against the last
   * page's meta.totalCount (TotalCountMismatchError when they differ). Leaving the loop early
   * skips the check.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    let received = 0;
    let expected = 0;
    for await (const page of this.pages()) {
      expected = page.meta.totalCount;
      for (const item of page.data) {
        received++;
        yield item;
      }
    }
    if (received !== expected) throw new TotalCountMismatchError(expected, received);
  }

  /**
   * Collects at most `limit` items (a required cap, so a large list cannot fill memory by accident).
   * When the list ends before the cap, its count is checked as in iteration; when the cap is
   * reached, the first `limit` items are returned without reading further pages.
   */
  async toArray(options: { limit: number }): Promise<T[]> {
    const limit = options?.limit;
    if (!Number.isInteger(limit) || limit < 0) throw new TypeError('toArray needs { limit }: a whole number of items, at least 0');
    const items: T[] = [];
    if (limit === 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }
}
