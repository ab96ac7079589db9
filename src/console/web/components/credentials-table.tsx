import type { Ref } from 'preact';
import { accessLevelLabel } from '../format.ts';
import type { Credential } from '../types.ts';
import { DateTime } from './date-time.tsx';
import { StatusBadge } from './status-badge.tsx';
import { ScrollTable } from './scroll-table.tsx';

interface CredentialsTableProps {
  credentials: Credential[];
  busy: boolean;
  captionRef: Ref<HTMLTableCaptionElement>;
  onRevoke: (credential: Credential) => void;
}

export function CredentialsTable({ credentials, busy, captionRef, onRevoke }: CredentialsTableProps) {
  return (
    <ScrollTable
      class="credentials-table"
      caption="Credentials of your organization, newest first"
      captionRef={captionRef}
      busy={busy}
      columns={['Name', 'Client ID', 'Access level', 'Created', 'Last used', 'Status']}
      actions
    >
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
    </ScrollTable>
  );
}
