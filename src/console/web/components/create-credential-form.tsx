import type { TargetedSubmitEvent } from 'preact';
import { useId, useState } from 'preact/hooks';
import { type ApiError, createCredential, toApiError } from '../api.ts';
import type { AccessLevel, NewCredential } from '../types.ts';
import { FieldMessage, FormError, fieldMessage } from './status.tsx';

/** The API's limit on a credential's name (CREDENTIAL_NAME_MAX_LENGTH). */
const NAME_MAX_LENGTH = 100;

export function CreateCredentialForm({ onCreated }: { onCreated: (credential: NewCredential) => void }) {
  const [name, setName] = useState('');
  const [accessLevel, setAccessLevel] = useState<AccessLevel>('read_only');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const headingId = useId();
  const nameId = useId();
  const nameHintId = useId();
  const levelId = useId();
  const levelHintId = useId();
  const errorId = useId();
  const nameErrorId = useId();
  // checked here first (the same rules as the API's), so a blank name needs no round trip
  const [nameProblem, setNameProblem] = useState<string | null>(null);
  const nameError = nameProblem ?? fieldMessage(error, 'name');

  async function submit(event: TargetedSubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setError(null);
    if (name.trim() === '') {
      setNameProblem('Name must not be blank');
      return;
    }
    setNameProblem(null);
    setBusy(true);
    try {
      const created = await createCredential({ name: name.trim(), accessLevel });
      setName('');
      setAccessLevel('read_only');
      onCreated(created);
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Create a credential</h2>
      {/* noValidate: an empty name gets this form's own message under the field (as a blank one
          does), not the browser's bubble; `required` stays for assistive technology. */}
      <form class="create-form" noValidate onSubmit={submit} aria-describedby={error !== null ? errorId : undefined}>
        <div class="field">
          <label for={nameId}>Name</label>
          <input
            id={nameId}
            type="text"
            name="name"
            autocomplete="off"
            value={name}
            required
            maxLength={NAME_MAX_LENGTH}
            onInput={(event) => {
              setName(event.currentTarget.value);
              setNameProblem(null);
            }}
            aria-describedby={nameError !== null ? `${nameErrorId} ${nameHintId}` : nameHintId}
            aria-invalid={nameError !== null ? true : undefined}
          />
          <FieldMessage id={nameErrorId} message={nameError} />
          <p class="hint" id={nameHintId}>
            Required, up to {NAME_MAX_LENGTH} characters: for example the system that will use it.
          </p>
        </div>
        <div class="field">
          <label for={levelId}>Access level</label>
          <select
            id={levelId}
            name="accessLevel"
            value={accessLevel}
            onChange={(event) => setAccessLevel(event.currentTarget.value as AccessLevel)}
            aria-describedby={levelHintId}
          >
            <option value="read_only">Read Only</option>
            <option value="read_write">Read &amp; Write</option>
          </select>
          <p class="hint" id={levelHintId}>
            Read &amp; Write can also change data.
          </p>
        </div>
        <div class="form-actions">
          <button type="submit" class="button-primary" aria-busy={busy}>
            Create credential
          </button>
        </div>
      </form>
      <FormError error={error} id={errorId} shownAtFields={['name']} />
    </section>
  );
}
