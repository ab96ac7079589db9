import type { TargetedSubmitEvent } from 'preact';
import { useId, useState } from 'preact/hooks';
import { type ApiError, signIn, toApiError } from '../api.ts';
import { PageHeading } from '../components/page-heading.tsx';
import type { Session } from '../types.ts';
import { FieldMessage, fieldMessage } from '../components/status.tsx';

export interface Notice {
  text: string;
  /** 'alert' for news the admin did not ask for (session ended); 'status' otherwise. */
  role: 'alert' | 'status';
}

export function SignInPage({ notice, onSignedIn }: { notice: Notice | null; onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const emailId = useId();
  const passwordId = useId();
  const errorId = useId();
  const emailErrorId = useId();
  const passwordErrorId = useId();
  const emailError = fieldMessage(error, 'email');
  const passwordError = fieldMessage(error, 'password');

  async function submit(event: TargetedSubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const session = await signIn(email.trim(), password);
      onSignedIn(session);
    } catch (caught) {
      setError(toApiError(caught));
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <div class="sign-in-card">
        <p class="brand-product">Developer console</p>
        <PageHeading title="Sign in" />
        {error !== null ? (
          <p role="alert" id={errorId} class="form-error">
            {signInErrorText(error)}
          </p>
        ) : (
          notice !== null && (
            <p role={notice.role} class={notice.role === 'alert' ? 'notice notice-warning' : 'notice'}>
              {notice.text}
            </p>
          )
        )}
        <form onSubmit={submit} aria-describedby={error !== null ? errorId : undefined}>
          <div class="field">
            <label for={emailId}>Email</label>
            <input
              id={emailId}
              type="email"
              name="email"
              autocomplete="username"
              value={email}
              required
              maxLength={320}
              onInput={(event) => setEmail(event.currentTarget.value)}
              aria-invalid={error?.status === 401 || emailError !== null ? true : undefined}
              aria-describedby={emailError !== null ? emailErrorId : undefined}
            />
            <FieldMessage id={emailErrorId} message={emailError} />
          </div>
          <div class="field">
            <label for={passwordId}>Password</label>
            <input
              id={passwordId}
              type="password"
              name="password"
              autocomplete="current-password"
              value={password}
              required
              onInput={(event) => setPassword(event.currentTarget.value)}
              aria-invalid={error?.status === 401 || passwordError !== null ? true : undefined}
              aria-describedby={passwordError !== null ? passwordErrorId : undefined}
            />
            <FieldMessage id={passwordErrorId} message={passwordError} />
          </div>
          <button type="submit" class="button-primary" aria-busy={busy}>
            Sign in
          </button>
        </form>
      </div>
    </main>
  );
}

function signInErrorText(error: ApiError): string {
  if (error.status === 429) {
    return error.retryAfterSec !== null
      ? `Too many sign-in attempts. Try again in ${error.retryAfterSec} seconds.`
      : 'Too many sign-in attempts. Try again later.';
  }
  // each field's message is shown under its field (FieldMessage), not repeated here
  if (error.status === 400 && error.details.length > 0) return `${error.message} See the fields below.`;
  return error.message;
}
