// Loads a cursor-paged API list for a page (the audit log, an endpoint's deliveries): the first
// page, then each "Load more" appends the next. The items already shown stay on screen while a
// page loads or when it fails, so the admin keeps their place.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, type Page, toApiError } from './api.ts';

export interface Pages<T> {
  /** every item loaded so far, or undefined before the first page arrives */
  items: T[] | undefined;
  nextCursor: string | null;
  loading: boolean;
  error: ApiError | undefined;
  /** Loads the first page again (`null`, replacing what is shown) or the page at `cursor` (appended). */
  load: (cursor: string | null) => Promise<void>;
}

interface PagesState<T> {
  items: T[] | undefined;
  nextCursor: string | null;
  loading: boolean;
  error: ApiError | undefined;
}

/** `loadPage` must keep its identity between renders (a module function, or useCallback): a new one reloads. */
export function usePages<T>(loadPage: (cursor: string | null) => Promise<Page<T>>): Pages<T> {
  const [state, setState] = useState<PagesState<T>>({ items: undefined, nextCursor: null, loading: true, error: undefined });
  const mounted = useRef(true);

  const load = useCallback(
    async (cursor: string | null) => {
      setState((previous) => ({ ...previous, loading: true, error: undefined }));
      try {
        const page = await loadPage(cursor);
        if (!mounted.current) return;
        setState((previous) => ({
          items: cursor === null ? page.items : [...(previous.items ?? []), ...page.items],
          nextCursor: page.nextCursor,
          loading: false,
          error: undefined,
        }));
      } catch (error) {
        if (mounted.current) setState((previous) => ({ ...previous, loading: false, error: toApiError(error) }));
      }
    },
    [loadPage],
  );

  useEffect(() => {
    mounted.current = true;
    void load(null);
    return () => {
      mounted.current = false;
    };
  }, [load]);

  return { ...state, load };
}
