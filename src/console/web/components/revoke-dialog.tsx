import { useRef } from 'preact/hooks';
import { revokeCredential } from '../api.ts';
import type { Credential } from '../types.ts';
import { ConfirmDialog } from './confirm-dialog.tsx';

/** One request to confirm a revocation: a new object per request (see ConfirmDialog's `open`). */
export interface RevokeRequest {
  credential: Credential;
}

interface RevokeDialogProps {
  /** The open request, or null when the dialog is closed. */
  request: RevokeRequest | null;
  onClose: () => void;
  onRevoked: (credential: Credential) => void;
}

export function RevokeDialog({ request, onClose, onRevoked }: RevokeDialogProps) {
  // Keeps the text in place while the dialog closes.
  const lastShown = useRef<Credential | null>(null);
  if (request !== null) lastShown.current = request.credential;
  const shown = lastShown.current;

  return (
    <ConfirmDialog
      open={request}
      title="Revoke credential?"
      confirmLabel="Revoke credential"
      danger
      onClose={onClose}
      onConfirm={() => {
        // the dialog is only ever opened with a credential, so it has one whenever its button is pressed
        if (shown === null) return Promise.reject(new Error('No credential to revoke.'));
        return revokeCredential(shown.id);
      }}
      onConfirmed={onRevoked}
      description={
        <>
          Revoking <strong>{shown?.name}</strong> (client ID <code>{shown?.clientId}</code>) cannot be undone. Every token it issued stops
          working at once.
        </>
      }
    />
  );
}
