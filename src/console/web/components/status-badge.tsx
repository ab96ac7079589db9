import { statusLabel } from '../format.ts';
import type { CredentialStatus } from '../types.ts';

export function StatusBadge({ status }: { status: CredentialStatus }) {
  return <span class={`badge badge-${status}`}>{statusLabel(status)}</span>;
}
