import { accessLevelLabel } from '../format.ts';
import type { NewCredential } from '../types.ts';
import { OneTimeSecretPanel } from './one-time-secret-panel.tsx';

/** A new credential with its client secret, shown once after it is created. */
export function NewCredentialPanel({ credential, onDone }: { credential: NewCredential; onDone: () => void }) {
  return (
    <OneTimeSecretPanel
      title="New credential created"
      warning="This secret is shown only once. Store it now; it cannot be shown again."
      secretLabel="Client secret"
      secret={credential.clientSecret}
      secretTestId="new-client-secret"
      onDone={onDone}
      details={
        <>
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
        </>
      }
    />
  );
}
