// Loads one API resource for a page. Data from an earlier load stays on screen while
// a reload runs, so refreshing a table does not flash a loading message.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, toApiError } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => Promise<void>;
  /** Applies a change the server has already confirmed, before the next reload shows it. */
  update: (change: (data: T) => T) => void;
}

export function useLoad<T>(loader: () => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const mounted = useRef(true);
  const reload = useCallback(async () => {
    setState((previous) => ({ data: previous.data, loading: true }));
    try {
      const data = await loader();
      if (mounted.current) setState({ data, loading: false });
    } catch (error) {
      if (mounted.current) setState((previous) => ({ data: previous.data, error: toApiError(error), loading: false }));
    }
  }, [loader]);
  useEffect(() => {
    mounted.current = true;
    void reload();
    return () => {
      mounted.current = false;
    };
  }, [reload]);
  const update = useCallback((change: (data: T) => T) => {
    setState((previous) => (previous.data === undefined ? previous : { ...previous, data: change(previous.data) }));
  }, []);
  return { data: state.data, error: state.error, loading: state.loading, reload, update };
}
