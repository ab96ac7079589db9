// When the service cannot be reached, the platform's error (`fetch failed`, `ECONNREFUSED` and a
// stack of causes) tells a person nothing about what to do. This says which address was tried,
// where that address came from, and the next step.
import { ConnectionError } from './sdk.ts';

export class UnreachableError extends Error {
  override name = 'UnreachableError';
  /** the write's key, when the failed request was a write */
  idempotencyKey?: string;
  readonly code: string | undefined;

  constructor(error: ConnectionError, baseUrl: string, addressFrom: string | undefined, note?: string) {
    super(describe(error, baseUrl, addressFrom) + (note ? `\n  ${note}` : ''), { cause: error });
    this.code = error.code;
    this.idempotencyKey = error.idempotencyKey;
  }
}

function describe(error: ConnectionError, baseUrl: string, addressFrom: string | undefined): string {
  const reason = error.message.replace(/^cannot reach [^:]+:\/\/[^:/]+(?::\d+)?: /, '');
  const lines = [`cannot reach the service at ${baseUrl}: ${reason}`];
  switch (error.code) {
    case 'ECONNREFUSED':
      lines.push('  Is the service running, and listening at that address and port?');
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      lines.push('  Is the host name right, and is this machine online?');
      break;
    default:
      if (error.code?.includes('CERT'))
        lines.push('  The TLS certificate was refused; check the address, or the certificate of the service.');
      else lines.push('  Is the service running, and is the network up?');
  }
  lines.push(
    `  The address came from ${addressFrom ?? 'the configuration'}; give another with --base-url URL or COMPLIANCE_BASE_URL ("compliance whoami" shows the settings in use).`,
  );
  return lines.join('\n');
}

/** The SDK's ConnectionError as an UnreachableError with the address's source; any other error as it is. */
export function explainUnreachable(err: unknown, baseUrl: () => string | undefined, addressFrom: () => string | undefined): unknown {
  if (!(err instanceof ConnectionError)) return err;
  // A connection that dropped mid-answer reached the service; only a failure to connect is "unreachable".
  if (err.code === 'ECONNRESET' || err.code === 'UND_ERR_SOCKET' || err.code === 'EPIPE') return err;
  return new UnreachableError(err, baseUrl() ?? (err.url ? new URL(err.url).origin : 'the configured address'), addressFrom());
}
