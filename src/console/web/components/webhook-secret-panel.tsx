import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/**
 * Shows a webhook signing secret the only time it exists in the browser (at registration and at
 * rotation), like the new-credential panel: held in the parent's state alone (no storage, URL or
 * logging), so it is gone after "Done", a navigation or a reload.
 */
export function WebhookSecretPanel({
  title,
  secret,
  children,
  onDone,
}: {
  title: string;
  secret: string;
  /** what the secret belongs to, and what to do with it */
  children?: ComponentChildren;
  onDone: () => void;
}) {
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const shown = useRef<HTMLElement>(null);
  const [copyStatus, setCopyStatus] = useState('');

  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: 'nearest' });
    setCopyStatus('');
  }, [secret]);

  async function copy() {
    setCopyStatus('');
    try {
      await navigator.clipboard.writeText(secret);
      setCopyStatus('Copied');
    } catch {
      // No clipboard access (insecure origin, denied permission): select the text instead.
      if (shown.current !== null) getSelection()?.selectAllChildren(shown.current);
      setCopyStatus('Could not copy automatically. The secret is selected; press Ctrl+C (⌘C on a Mac) to copy it.');
    }
  }

  return (
    <section class="card new-credential" aria-labelledby={headingId}>
      <h2 id={headingId} ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p class="warning">This signing secret is shown only once. Store it with the receiver now; it cannot be shown again.</p>
      {children}
      <dl class="details">
        <div>
          <dt>Signing secret</dt>
          <dd>
            <code data-testid="webhook-secret" class="secret">
              <span ref={shown}>{secret}</span>
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
