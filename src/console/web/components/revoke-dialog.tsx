import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { type ApiError, revokeCredential, toApiError } from '../api.ts';
import type { Credential } from '../types.ts';
import { FormError } from './status.tsx';

/**
 * One request to confirm a revocation. A new object per request, so asking again for the
 * same credential is still a change of state: Preact skips a render whose hook state ends
 * up equal to what it last rendered, and a quick close-and-reopen would otherwise be lost.
 */
export interface RevokeRequest {
  credential: Credential;
}

interface RevokeDialogProps {
  /** The open request, or null when the dialog is closed. */
  request: RevokeRequest | null;
  onClose: () => void;
  onRevoked: (credential: Credential) => void;
}

/**
 * A native modal <dialog>: showModal() gives the focus trap, the inert background and
 * Escape-to-cancel without any script of our own.
 */
export function RevokeDialog({ request, onClose, onRevoked }: RevokeDialogProps) {
  const credential = request?.credential ?? null;
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  // Keeps the text in place while the dialog closes.
  const lastShown = useRef<Credential | null>(null);
  if (credential !== null) lastShown.current = credential;
  const shown = lastShown.current;
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const headingId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (credential !== null && !element.open) {
      setError(null);
      element.showModal();
      // The safe choice gets focus first.
      cancel.current?.focus();
    } else if (credential === null && element.open) {
      element.close();
    }
  }, [request]);

  function dismiss() {
    dialog.current?.close();
    onClose();
  }

  async function confirm() {
    if (shown === null || busy) return;
    setBusy(true);
    setError(null);
    try {
      const revoked = await revokeCredential(shown.id);
      dialog.current?.close();
      onRevoked(revoked);
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby={headingId}
      aria-describedby={descriptionId}
      // Escape. The "close" event is not used: it arrives a task later, and by then the
      // admin may already have asked to open the dialog again.
      onCancel={onClose}
    >
      <h2 id={headingId}>Revoke credential?</h2>
      <p id={descriptionId}>
        Revoking <strong>{shown?.name}</strong> (client ID <code>{shown?.clientId}</code>) cannot be undone. Every token it issued stops
        working at once.
      </p>
      <FormError error={error} />
      <div class="dialog-actions">
        <button type="button" class="button-secondary" ref={cancel} onClick={dismiss}>
          Cancel
        </button>
        <button type="button" class="button-danger" onClick={confirm} aria-busy={busy}>
          Revoke credential
        </button>
      </div>
    </dialog>
  );
}
