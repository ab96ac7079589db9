// The console signs out on screen once the session has timed out (app.tsx), rather than leave
// data showing on an unattended screen until the next click.
import { useEffect } from 'preact/hooks';
import { getSession, lastActivityAt } from './api.ts';
import type { Session } from './types.ts';

// setTimeout fires at once for delays beyond a signed 32-bit integer.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Watches `session`'s time-out: `setSession` with the server's newer session, `onEnded` once it has ended. */
export function useSignOutWhenIdle(session: Session | null | undefined, setSession: (next: Session) => void, onEnded: () => void): void {
  // The idle time-out restarts with every request this tab makes, so the check waits for that; only then does it ask the server (another
  // tab may have kept the session alive), so the check itself never extends an idle session.
  useEffect(() => {
    if (!session) return;
    const idleMs = Math.max(session.expiresAt - lastActivityAt(), 0);
    const dueAt = () => Math.max(session.expiresAt, lastActivityAt() + idleMs) + 1000;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (delay: number) => {
      timer = setTimeout(check, Math.min(Math.max(delay, 0), MAX_TIMER_MS));
    };
    const check = async () => {
      if (dueAt() > Date.now()) return arm(dueAt() - Date.now());
      try {
        const current = await getSession();
        if (cancelled) return;
        if (current === null) onEnded();
        else setSession(current);
      } catch {
        // Offline: look again in a minute.
        if (!cancelled) arm(60_000);
      }
    };
    arm(dueAt() - Date.now());
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [session]);
}
