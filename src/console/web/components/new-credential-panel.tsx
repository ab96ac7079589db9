import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { accessLevelLabel } from '../format.ts';
import type { NewCredential } from '../types.ts';

/**
 * Shows a new credential's secret the only time it exists in the browser. The secret is
 * held in the parent's component state alone (no storage, URL or logging), so it is
 * gone after "Done", a navigation or a reload.
 */
export function NewCredentialPanel({ credential, onDone }: { credential: NewCredential; onDone: () => void }) {
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const secret = useRef<HTMLElement>(null);
  const [copyStatus, setCopyStatus] = useState('');

  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: 'nearest' });
  }, [credential.id]);

  async function copy() {
    setCopyStatus('');
    try {
      await navigator.clipboard.writeText(credential.clientSecret);
      setCopyStatus('Copied');
    } catch {
      // No clipboard access (insecure origin, denied permission): select the text instead.
      if (secret.current !== null) getSelection()?.selectAllChildren(secret.current);
      setCopyStatus('Could not copy automatically. The secret is selected; press Ctrl+C (⌘C on a Mac) to copy it.');
    }
  }

  return (
    <section class="card new-credential" aria-labelledby={headingId}>
      <h2 id={headingId} ref={heading} tabIndex={-1}>
        New credential created
      </h2>
      <p class="warning">This secret is shown only once. Store it now; it cannot be shown again.</p>
      <dl class="details">
        <div>
          <dt>Name</dt>
          <dd>{credential.name}</dd>
        </div>
        <div>
          <dt>Access level</dt>
          <dd>{accessLevelLabel(credential.accessLevel)}</dd>
        </div>
        <div>
          <dt>Client ID</dt>
          <dd>
            <code data-testid="new-client-id">{credential.clientId}</code>
          </dd>
        </div>
        <div>
          <dt>Client secret</dt>
          <dd>
            <code data-testid="new-client-secret" class="secret" ref={secret}>
              {credential.clientSecret}
            </code>
          </dd>
        </div>
      </dl>
      <div class="panel-actions">
        <button type="button" class="button-primary" onClick={copy}>
          Copy secret
        </button>
        <button type="button" class="button-secondary" onClick={onDone}>
          Done
        </button>
        <span class="copy-status" role="status" aria-live="polite">
          {copyStatus}
        </span>
      </div>
    </section>
  );
}
