import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api.ts';
import { FormError } from './status.tsx';

/**
 * Asks before an action that cannot be undone (revoking a credential, deleting a webhook endpoint,
 * rotating its secret). A native modal <dialog>: showModal() gives the focus trap, the inert
 * background and Escape-to-cancel without any script of our own. `open` is a new object per request,
 * so asking again is a change of state: Preact skips a render whose hook state ends up equal to what
 * it last rendered, and a quick close-and-reopen would otherwise be lost.
 */
export function ConfirmDialog<T>({
  open,
  title,
  description,
  confirmLabel,
  danger,
  onConfirm,
  onConfirmed,
  onClose,
}: {
  /** The open request, or null when the dialog is closed. */
  open: object | null;
  title: string;
  /** the paragraph that says what the action does; the dialog's accessible description */
  description: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  /** calls the API; the dialog closes when it succeeds and shows the error when it fails */
  onConfirm: () => Promise<T>;
  /**
   * Called with onConfirm's result once the dialog has closed: closing a modal dialog moves focus
   * back to where it was, so focus moved before that would not stay, and the page behind is inert.
   */
  onConfirmed?: (result: T) => void;
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
      const result = await onConfirm();
      dialog.current?.close();
      onConfirmed?.(result);
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
      <h2 id={headingId}>{title}</h2>
      <p id={descriptionId}>{description}</p>
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
