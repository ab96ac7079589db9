import { useRef, useState } from 'preact/hooks';
import { listCredentials } from '../api.ts';
import { CreateCredentialForm } from '../components/create-credential-form.tsx';
import { CredentialsTable } from '../components/credentials-table.tsx';
import { NewCredentialPanel } from '../components/new-credential-panel.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { RevokeDialog, type RevokeRequest } from '../components/revoke-dialog.tsx';
import { LoadError, Loading } from '../components/status.tsx';
import { useLoad } from '../use-load.tsx';
import type { Credential, NewCredential } from '../types.ts';

export function CredentialsPage() {
  const list = useLoad(listCredentials);
  const [created, setCreated] = useState<NewCredential | null>(null);
  const [revoking, setRevoking] = useState<RevokeRequest | null>(null);
  const caption = useRef<HTMLTableCaptionElement>(null);

  // After the list changes under the admin, land on the table (or the page top if it is gone).
  function focusList() {
    const target = caption.current ?? document.querySelector<HTMLElement>('main h1');
    target?.focus();
  }

  function handleCreated(credential: NewCredential) {
    setCreated(credential);
    // The list copy must not hold the secret: only the panel may, and only until "Done".
    const { clientSecret: _secret, ...listed } = credential;
    list.update((credentials) => [listed, ...credentials.filter((item) => item.id !== listed.id)]);
    void list.reload();
  }

  async function handleRevoked(revoked: Credential) {
    setRevoking(null);
    // A revoked credential's secret is of no use: its one-time panel goes with it.
    if (created?.id === revoked.id) setCreated(null);
    list.update((credentials) => credentials.map((item) => (item.id === revoked.id ? revoked : item)));
    focusList();
    await list.reload();
  }

  return (
    <>
      <PageHeading title="Credentials" />
      <p class="lead">
        Credentials let your systems call the Compliance Data API with the OAuth client-credentials flow. Revoke a credential as soon as it
        is no longer needed or may have leaked.
      </p>
      <CreateCredentialForm onCreated={handleCreated} />
      {created !== null && (
        <NewCredentialPanel
          credential={created}
          onDone={() => {
            setCreated(null);
            focusList();
          }}
        />
      )}
      <section class="section" aria-labelledby="credentials-list-heading">
        <h2 id="credentials-list-heading">Your credentials</h2>
        {list.error !== undefined && <LoadError what="credentials" error={list.error} onRetry={list.reload} />}
        {list.data === undefined ? (
          list.loading && <Loading>Loading credentials…</Loading>
        ) : list.data.length === 0 ? (
          <p class="empty">No credentials yet. Create one above to let a system call the API.</p>
        ) : (
          <CredentialsTable
            credentials={list.data}
            busy={list.loading}
            captionRef={caption}
            onRevoke={(credential) => setRevoking({ credential })}
          />
        )}
      </section>
      <RevokeDialog request={revoking} onClose={() => setRevoking(null)} onRevoked={handleRevoked} />
    </>
  );
}
