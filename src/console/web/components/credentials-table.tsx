import type { Ref } from 'preact';
import { useId } from 'preact/hooks';
import { accessLevelLabel } from '../format.ts';
import type { Credential } from '../types.ts';
import { DateTime } from './date-time.tsx';
import { StatusBadge } from './status-badge.tsx';

interface CredentialsTableProps {
  credentials: Credential[];
  busy: boolean;
  captionRef: Ref<HTMLTableCaptionElement>;
  onRevoke: (credential: Credential) => void;
}

export function CredentialsTable({ credentials, busy, captionRef, onRevoke }: CredentialsTableProps) {
  const captionId = useId();
  return (
    // Focusable so keyboard users can scroll the table sideways on narrow screens.
    <div class="table-scroll" role="group" aria-labelledby={captionId} tabIndex={0}>
      <table class="credentials-table" aria-busy={busy}>
        <caption id={captionId} ref={captionRef} tabIndex={-1}>
          Credentials of your organization, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Client ID</th>
            <th scope="col">Access level</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
            <td class="actions-cell">
              <span class="visually-hidden">Actions</span>
            </td>
          </tr>
        </thead>
        <tbody>
          {credentials.map((credential) => (
            <tr key={credential.id} class={credential.status === 'revoked' ? 'row-revoked' : undefined}>
              <th scope="row" class="cell-name">
                {credential.name}
              </th>
              <td data-label="Client ID">
                <code>{credential.clientId}</code>
              </td>
              <td data-label="Access level" class="nowrap">
                {accessLevelLabel(credential.accessLevel)}
              </td>
              <td data-label="Created">
                <DateTime ms={credential.createdAt} />
              </td>
              <td data-label="Last used">{credential.lastUsedAt === null ? 'Never' : <DateTime ms={credential.lastUsedAt} />}</td>
              <td data-label="Status">
                {/* The revocation time sits under its badge, not in the actions column: that column
                    stays as narrow as the Revoke button, so the table fits laptop widths. */}
                <span class="status-cell">
                  <StatusBadge status={credential.status} />
                  {credential.status === 'revoked' && credential.revokedAt !== null && (
                    <span class="status-time">
                      <DateTime ms={credential.revokedAt} />
                    </span>
                  )}
                </span>
              </td>
              <td class="actions-cell">
                {credential.status === 'active' && (
                  <button
                    type="button"
                    class="button-danger button-small"
                    aria-label={`Revoke ${credential.name}`}
                    onClick={() => onRevoke(credential)}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
