import type { FunctionComponent } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, getSession, setSessionEndedHandler, signOut, toApiError } from './api.ts';
import { Layout } from './components/layout.tsx';
import { AuditLogPage } from './pages/audit-log.tsx';
import { CredentialsPage } from './pages/credentials.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { ProgramPage } from './pages/program.tsx';
import { type Notice, SignInPage } from './pages/sign-in.tsx';
import { UsagePage } from './pages/usage.tsx';
import { WebhookEndpointPage } from './pages/webhook-endpoint.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { currentPath, navigate, PATHS, useRoute, webhookEndpointIdOf } from './router.tsx';
import type { Session } from './types.ts';
import { useSignOutWhenIdle } from './use-idle-sign-out.ts';

const PAGES: Record<string, FunctionComponent> = {
  [PATHS.credentials]: CredentialsPage,
  [PATHS.usage]: UsagePage,
  [PATHS.overview]: OverviewPage,
  [PATHS.auditLog]: AuditLogPage,
  [PATHS.webhooks]: WebhooksPage,
  [PATHS.program]: ProgramPage,
};

/** Whether `path` is a page of the console (one of PAGES, or a webhook endpoint's page). */
const isPage = (path: string) => path in PAGES || webhookEndpointIdOf(path) !== null;

const SESSION_ENDED: Notice = { text: 'Your session has ended. Sign in again.', role: 'alert' };
const SIGNED_OUT: Notice = { text: 'You have signed out.', role: 'status' };

/** Where a path should lead given the session; equal to the path when it can be shown as is. */
function targetPath(path: string, signedIn: boolean): string {
  if (!signedIn) return PATHS.signIn;
  if (path === '/console' || path === PATHS.signIn) return PATHS.credentials;
  return path;
}

export function App() {
  const route = useRoute();
  // undefined while the first session check runs.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [bootError, setBootError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<string | null>(null);
  // The page a signed-out visitor asked for, opened after sign-in.
  const returnTo = useRef<string | null>(null);
  const signedIn = useRef(false);

  const endSession = useCallback((next: Notice, rememberPage = true) => {
    // A time-out check and a 401 may both report the same end.
    if (!signedIn.current) return;
    signedIn.current = false;
    const path = currentPath();
    returnTo.current = rememberPage && isPage(path) ? path : null;
    setSession(null);
    setNotice(next);
    setSigningOut(false);
    setSignOutError(null);
    navigate(PATHS.signIn, { replace: true });
  }, []);

  const checkSession = useCallback(async () => {
    setBootError(null);
    try {
      const current = await getSession();
      signedIn.current = current !== null;
      setSession(current);
    } catch (error) {
      setBootError(toApiError(error));
    }
  }, []);

  useEffect(() => {
    setSessionEndedHandler(() => endSession(SESSION_ENDED));
    void checkSession();
  }, []);

  useSignOutWhenIdle(session, setSession, () => endSession(SESSION_ENDED));

  // Keep the address bar in step with what is shown (sign-in page, default page).
  useEffect(() => {
    if (session === undefined) return;
    const target = targetPath(route.path, session !== null);
    if (target === route.path) return;
    if (session === null && isPage(route.path)) returnTo.current = route.path;
    navigate(target, { replace: true, focusHeading: false });
  }, [session, route.path]);

  function handleSignedIn(next: Session) {
    signedIn.current = true;
    setSession(next);
    setNotice(null);
    const destination = returnTo.current ?? PATHS.credentials;
    returnTo.current = null;
    navigate(destination, { replace: true });
  }

  async function handleSignOut() {
    if (signingOut) return;
    setSigningOut(true);
    setSignOutError(null);
    try {
      await signOut();
      endSession(SIGNED_OUT, false);
    } catch (error) {
      const apiError = toApiError(error);
      // A 401 has already taken the app to sign-in.
      if (apiError.status !== 401) setSignOutError(apiError.message);
      setSigningOut(false);
    }
  }

  if (session === undefined) {
    return (
      <main id="main" class="boot">
        {bootError === null ? (
          <p role="status" class="loading">
            Loading the developer console…
          </p>
        ) : (
          <div class="error-box">
            <h1>Developer console</h1>
            <p role="alert">Could not start the console. {bootError.message}</p>
            <button type="button" class="button-primary" onClick={checkSession}>
              Try again
            </button>
          </div>
        )}
      </main>
    );
  }

  if (session === null) return <SignInPage notice={notice} onSignedIn={handleSignedIn} />;

  const path = targetPath(route.path, true);
  const endpointId = webhookEndpointIdOf(path);
  const Page = PAGES[path] ?? NotFoundPage;
  return (
    <Layout session={session} path={path} onSignOut={handleSignOut} signingOut={signingOut} signOutError={signOutError}>
      {endpointId !== null ? <WebhookEndpointPage key={path} endpointId={endpointId} /> : <Page key={path} />}
    </Layout>
  );
}
