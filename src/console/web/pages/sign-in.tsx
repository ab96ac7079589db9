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
  const errorId = useId();
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
          <Field
            label="Email"
            type="email"
            autocomplete="username"
            maxLength={320}
            value={email}
            onValue={setEmail}
            refused={error?.status === 401}
            message={emailError}
          />
          <Field
            label="Password"
            type="password"
            autocomplete="current-password"
            value={password}
            onValue={setPassword}
            refused={error?.status === 401}
            message={passwordError}
          />
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

/** One required field of the form: its name is its type; `refused` marks it invalid with the whole sign-in (a 401). */
function Field(props: {
  label: string;
  type: 'email' | 'password';
  autocomplete: string;
  maxLength?: number;
  value: string;
  onValue: (value: string) => void;
  refused: boolean;
  message: string | null;
}) {
  const id = useId();
  const errorId = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        // Preact types each input type apart; both are single-line text inputs here
        type={props.type as 'email'}
        name={props.type}
        autocomplete={props.autocomplete}
        value={props.value}
        required
        maxLength={props.maxLength}
        onInput={(event) => props.onValue(event.currentTarget.value)}
        aria-invalid={props.refused || props.message !== null ? true : undefined}
        aria-describedby={props.message !== null ? errorId : undefined}
      />
      <FieldMessage id={errorId} message={props.message} />
    </div>
  );
}
