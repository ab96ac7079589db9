// Display text for API values. A fixed locale keeps dates and numbers identical for
// every administrator (and for the end-to-end tests); times are in the browser's zone, named
// after each time, with the exact UTC instant kept in <time dateTime>.
import type { AccessLevel, CredentialStatus, WebhookDelivery, WebhookEndpoint } from './types.ts';

// Every date and time names its zone ("24 Nov 2026, 14:05 UTC"): an administrator comparing the
// console with logs or another colleague's screen must know which clock it is.
const dateTime = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});
const dateTimeSeconds = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});
const hourMinute = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' });

/** The browser's time zone as the dates show it ("UTC", "CET", "GMT-5"). */
export function timeZoneLabel(ms = Date.now()): string {
  return dateTime.formatToParts(ms).find((part) => part.type === 'timeZoneName')?.value ?? 'local time';
}
const count = new Intl.NumberFormat('en-GB');

export function formatDateTime(ms: number, withSeconds = false): string {
  return (withSeconds ? dateTimeSeconds : dateTime).format(ms);
}

export function formatHour(ms: number): string {
  return hourMinute.format(ms);
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function formatCount(n: number): string {
  return count.format(n);
}

export function accessLevelLabel(level: AccessLevel): string {
  return level === 'read_write' ? 'Read & Write' : 'Read Only';
}

export function statusLabel(status: CredentialStatus): string {
  return status === 'revoked' ? 'Revoked' : 'Active';
}

const ACTION_LABELS: Record<string, string> = {
  'session.sign_in': 'Signed in',
  'session.sign_in_failed': 'Sign-in failed',
  'session.sign_out': 'Signed out',
  'credential.create': 'Created credential',
  'credential.revoke': 'Revoked credential',
  'admin.create': 'Created administrator',
  'admin.password_reset': 'Reset administrator password',
  'webhook_endpoint.create': 'Registered webhook endpoint',
  'webhook_endpoint.update': 'Changed webhook endpoint',
  'webhook_endpoint.enable': 'Enabled webhook endpoint',
  'webhook_endpoint.disable': 'Disabled webhook endpoint',
  'webhook_endpoint.delete': 'Deleted webhook endpoint',
  'webhook_endpoint.rotate_secret': 'Rotated webhook signing secret',
  'program.apply': 'Applied program document',
};

/** Readable name of an audit action; codes added later still read sensibly. */
export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? humanize(action);
}

export function actorTypeLabel(type: string): string {
  if (type === 'system') return 'The service';
  return type === 'cli' ? 'Command line' : 'Administrator';
}

const TARGET_TYPES: Record<string, string> = {
  admin: 'Administrator',
  credential: 'Credential',
  session: 'Session',
  webhook_endpoint: 'Webhook endpoint',
  program: 'Program',
};

export function targetTypeLabel(type: string): string {
  return TARGET_TYPES[type] ?? humanize(type);
}

export function humanize(code: string): string {
  const words = code.replace(/[._-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const BROWSERS: Array<[RegExp, string]> = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/OPR\/(\d+)/, 'Opera'],
  [/Firefox\/(\d+)/, 'Firefox'],
  [/HeadlessChrome\/(\d+)/, 'Headless Chrome'],
  [/Chrom(?:e|ium)\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];

const SYSTEMS: Array<[RegExp, string]> = [
  [/Windows/, 'Windows'],
  [/iPhone|iPad/, 'iOS'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Android/, 'Android'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** "Chrome 131 on macOS" for browsers; other agents (CLI, curl) cut to a short prefix. */
export function shortenUserAgent(ua: string): string {
  for (const [pattern, name] of BROWSERS) {
    const match = pattern.exec(ua);
    if (match === null) continue;
    const system = SYSTEMS.find(([test]) => test.test(ua));
    return `${name} ${match[1]}${system ? ` on ${system[1]}` : ''}`;
  }
  return ua.length > 40 ? `${ua.slice(0, 39)}…` : ua;
}

export function endpointStatusLabel(status: WebhookEndpoint['status']): string {
  return status === 'enabled' ? 'Enabled' : 'Disabled';
}

export function deliveryStatusLabel(status: WebhookDelivery['status']): string {
  return status === 'succeeded' ? 'Succeeded' : status === 'failed' ? 'Failed' : 'Pending';
}

/** An endpoint's event types as a reader says them. */
export function eventTypesLabel(types: readonly string[]): string {
  return types.includes('*') ? 'All events' : types.join(', ');
}
