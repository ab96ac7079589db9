import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/**
 * Shows a secret the only time it exists in the browser (a new credential's client secret, a
 * webhook endpoint's signing secret at registration and at rotation), with a button that copies it.
 * The secret is held in the parent's component state alone (no storage, URL or logging), so it is
 * gone after "Done", a navigation or a reload.
 */
export function OneTimeSecretPanel({
  title,
  warning,
  secretLabel,
  secret,
  secretTestId,
  details,
  children,
  onDone,
}: {
  title: string;
  /** says the secret is shown only once, and where to store it */
  warning: string;
  secretLabel: string;
  secret: string;
  secretTestId: string;
  /** the rows (<div><dt/><dd/></div>) of the details list before the secret's */
  details?: ComponentChildren;
  /** what the secret belongs to, and what to do with it, above the details */
  children?: ComponentChildren;
  onDone: () => void;
}) {
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const shown = useRef<HTMLElement>(null);
  const [copyStatus, setCopyStatus] = useState('');

  // A new secret in the same panel: the admin's attention goes to it, and "Copied" spoke of the old one.
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
      <p class="warning">{warning}</p>
      {children}
      <dl class="details">
        {details}
        <div>
          <dt>{secretLabel}</dt>
          <dd>
            <code data-testid={secretTestId} class="secret" ref={shown}>
              {secret}
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
