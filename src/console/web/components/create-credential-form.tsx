import type { TargetedSubmitEvent } from 'preact';
import { useId, useState } from 'preact/hooks';
import { type ApiError, createCredential, toApiError } from '../api.ts';
import type { AccessLevel, NewCredential } from '../types.ts';
import { FormError } from './status.tsx';

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
  const nameInvalid = error?.details.some((detail) => /(^|[./])name$/.test(detail.field)) ?? false;

  async function submit(event: TargetedSubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
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
      <form class="create-form" onSubmit={submit} aria-describedby={error !== null ? errorId : undefined}>
        <div class="field">
          <label for={nameId}>Name</label>
          <input
            id={nameId}
            type="text"
            name="name"
            autocomplete="off"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
            aria-describedby={nameHintId}
            aria-invalid={nameInvalid ? true : undefined}
          />
          <p class="hint" id={nameHintId}>
            Up to 100 characters, for example the system that will use it.
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
      <FormError error={error} id={errorId} />
    </section>
  );
}
