import type { ComponentChildren } from 'preact';
import { OneTimeSecretPanel } from './one-time-secret-panel.tsx';

/** A webhook signing secret, shown once at registration and at rotation. */
export function WebhookSecretPanel({
  title,
  secret,
  children,
  onDone,
}: {
  title: string;
  secret: string;
  /** what the secret belongs to, and what to do with it */
  children?: ComponentChildren;
  onDone: () => void;
}) {
  return (
    <OneTimeSecretPanel
      title={title}
      warning="This signing secret is shown only once. Store it with the receiver now; it cannot be shown again."
      secretLabel="Signing secret"
      secret={secret}
      secretTestId="webhook-secret"
      onDone={onDone}
    >
      {children}
    </OneTimeSecretPanel>
  );
}
