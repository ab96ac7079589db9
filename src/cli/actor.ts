// Who the audit log names for changes made with `cds`: the operating-system user and host,
// since the command has no signed-in administrator.
import os from 'node:os';
import type { AuditActor } from '../domain/console/audit.ts';

export function cliActor(command = 'cds'): AuditActor {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // no passwd entry (some containers): keep "unknown"
  }
  return { type: 'cli', id: null, label: `${command} (${user}@${os.hostname()})`, ip: null, userAgent: `command line on ${os.hostname()}` };
}
