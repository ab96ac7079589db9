import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api.ts';
import { FormError } from './status.tsx';

/**
 * Asks before an action that cannot be undone (deleting a webhook endpoint, rotating its secret).
 * A native modal <dialog>, as the revoke dialog: showModal() gives the focus trap, the inert
 * background and Escape-to-cancel. `open` is a new object per request, so asking again is a change.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  danger,
  onConfirm,
  onClose,
}: {
  open: object | null;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  /** calls the API; the dialog closes when it succeeds and shows the error when it fails */
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const headingId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open !== null && !element.open) {
      setError(null);
      element.showModal();
      // The safe choice gets focus first.
      cancel.current?.focus();
    } else if (open === null && element.open) {
      element.close();
    }
  }, [open]);

  function dismiss() {
    dialog.current?.close();
    onClose();
  }

  async function confirm() {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      dialog.current?.close();
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <dialog ref={dialog} class="dialog" aria-labelledby={headingId} aria-describedby={descriptionId} onCancel={onClose}>
      <h2 id={headingId}>{title}</h2>
      <div id={descriptionId}>{children}</div>
      <FormError error={error} />
      <div class="dialog-actions">
        <button type="button" class="button-secondary" ref={cancel} onClick={dismiss}>
          Cancel
        </button>
        <button type="button" class={danger ? 'button-danger' : 'button-primary'} onClick={confirm} aria-busy={busy}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
