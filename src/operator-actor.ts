// Who the audit log names for changes made on this host without a signed-in administrator (`cds`,
// the demo loader at the server's first start): the operating-system user and host.
import os from 'node:os';
import type { AuditActor } from './domain/console/audit.ts';

export function operatorActor(command = 'cds'): AuditActor {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // no passwd entry (some containers): keep "unknown"
  }
  return { type: 'cli', id: null, label: `${command} (${user}@${os.hostname()})`, ip: null, userAgent: `command line on ${os.hostname()}` };
}
