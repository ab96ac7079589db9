// Which addresses may receive webhooks (issue 15, docs/decisions/events-and-webhooks.md "Webhook endpoints,
// secrets and address safety"). A webhook is a request the service makes on an administrator's behalf to
// a URL the administrator chose: without a policy, an endpoint on 127.0.0.1, 10.x, or the cloud's
// metadata address would turn the service into a proxy into its own network (SSRF). The policy is
// applied twice: to the URL at registration (checkEndpointUrl, with the host resolved), and to the
// address actually connected to at delivery time, after DNS (the delivery worker calls
// forbiddenAddressReason), since a name may resolve differently later (DNS rebinding).
//
// Addresses are parsed to their bytes here, never compared as text: the same address has many
// spellings (0x7f.1, 017700000001, ::ffff:127.0.0.1, ::ffff:7f00:1, 0:0:0:0:0:0:0:1).
import { isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { FieldIssue } from '../errors.ts';

/** Longest URL accepted for an endpoint; longer is refused rather than cut. */
export const ENDPOINT_URL_MAX_LENGTH = 2048;

interface Range {
  /** network address bytes (4 for IPv4, 16 for IPv6) */
  base: number[];
  prefix: number;
  reason: string;
}

const v4 = (text: string, prefix: number, reason: string): Range => ({ base: text.split('.').map(Number), prefix, reason });
const v6 = (text: string, prefix: number, reason: string): Range => ({ base: parseIPv6(text)!, prefix, reason });

// Specific entries first: the first match names the reason. Cloud metadata services are named as
// such so an administrator understands the refusal.
const IPV4_RANGES: Range[] = [
  v4('169.254.169.254', 32, 'is a cloud metadata address'),
  v4('168.63.129.16', 32, 'is a cloud metadata address'),
  v4('100.100.100.200', 32, 'is a cloud metadata address'),
  v4('0.0.0.0', 8, 'is an unspecified address'),
  v4('10.0.0.0', 8, 'is a private address'),
  v4('100.64.0.0', 10, 'is a shared (carrier-grade NAT) address'),
  v4('127.0.0.0', 8, 'is a loopback address'),
  v4('169.254.0.0', 16, 'is a link-local address'),
  v4('172.16.0.0', 12, 'is a private address'),
  v4('192.0.0.0', 24, 'is a reserved address'),
  v4('192.0.2.0', 24, 'is a documentation address'),
  v4('192.88.99.0', 24, 'is a reserved address'),
  v4('192.168.0.0', 16, 'is a private address'),
  v4('198.18.0.0', 15, 'is a reserved (benchmarking) address'),
  v4('198.51.100.0', 24, 'is a documentation address'),
  v4('203.0.113.0', 24, 'is a documentation address'),
  v4('224.0.0.0', 4, 'is a multicast address'),
  v4('240.0.0.0', 4, 'is a reserved address'),
];

const IPV6_RANGES: Range[] = [
  v6('fd00:ec2::254', 128, 'is a cloud metadata address'),
  v6('::', 128, 'is an unspecified address'),
  v6('::1', 128, 'is a loopback address'),
  v6('64:ff9b:1::', 48, 'is a reserved (local NAT64) address'),
  v6('100::', 64, 'is a reserved (discard) address'),
  v6('2001::', 32, 'is a reserved (Teredo) address'),
  v6('2001:db8::', 32, 'is a documentation address'),
  v6('fc00::', 7, 'is a unique-local (private) address'),
  v6('fe80::', 10, 'is a link-local address'),
  v6('fec0::', 10, 'is a site-local (private) address'),
  v6('ff00::', 8, 'is a multicast address'),
];

function inRange(bytes: number[], range: Range): boolean {
  if (bytes.length !== range.base.length) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (range.base[i] & mask)) return false;
  }
  return true;
}

/** The 16 bytes of an IPv6 address (zone ID dropped), or undefined when `text` is not one. */
function parseIPv6(text: string): number[] | undefined {
  const address = text.replace(/%.*$/, '');
  if (isIP(address) !== 6) return undefined;
  let head = address;
  const groups: number[] = [];
  // a trailing dotted quad (::ffff:1.2.3.4) is two groups
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  let tailQuad: number[] = [];
  if (quad) {
    const b = quad[1].split('.').map(Number);
    tailQuad = [(b[0] << 8) | b[1], (b[2] << 8) | b[3]];
    head = head.slice(0, -quad[1].length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const parse = (part: string | undefined) =>
    part
      ? part
          .split(':')
          .filter((g) => g !== '')
          .map((g) => Number.parseInt(g, 16))
      : [];
  const l = parse(left);
  const r = [...parse(right), ...tailQuad];
  if (right === undefined) {
    groups.push(...l, ...tailQuad);
  } else {
    groups.push(...l, ...new Array(8 - l.length - r.length).fill(0), ...r);
  }
  if (groups.length !== 8) return undefined;
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/**
 * The IPv4 address a string denotes, in the liberal forms an HTTP client also accepts
 * (0x7f.1, 017700000001, 127.1): the WHATWG URL parser's host parsing decides, as fetch does.
 */
function parseIPv4(text: string): number[] | undefined {
  if (isIP(text) === 4) return text.split('.').map(Number);
  if (!/^[0-9a-fA-FxX.]+$/.test(text)) return undefined;
  try {
    const host = new URL(`http://${text}/`).hostname;
    return isIP(host) === 4 ? host.split('.').map(Number) : undefined;
  } catch {
    return undefined;
  }
}

function reasonForIPv4(bytes: number[]): string | undefined {
  if (bytes.every((b) => b === 255)) return 'is a broadcast address';
  return IPV4_RANGES.find((r) => inRange(bytes, r))?.reason;
}

/** Why `ip` may not receive webhooks, or undefined when it may. Anything that is not an IP address is refused. */
export function forbiddenAddressReason(ip: string): string | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const four = parseIPv4(bare);
  if (four) return reasonForIPv4(four);
  const six = parseIPv6(bare);
  if (!six) return 'is not an IP address';
  // IPv4 embedded in IPv6 reaches the IPv4 address: IPv4-mapped (::ffff:a.b.c.d), the deprecated
  // IPv4-compatible form (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
  const zeros = (from: number, to: number) => six.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && six[10] === 0xff && six[11] === 0xff) return reasonForIPv4(six.slice(12));
  if (zeros(0, 12) && !zeros(12, 16) && !(zeros(12, 15) && six[15] === 1)) return reasonForIPv4(six.slice(12));
  if (inRange(six, v6('64:ff9b::', 96, ''))) return reasonForIPv4(six.slice(12));
  if (six[0] === 0x20 && six[1] === 0x02) return reasonForIPv4(six.slice(2, 6));
  return IPV6_RANGES.find((r) => inRange(six, r))?.reason;
}

/** Resolves a host name to all its addresses (A and AAAA), as the delivery's connection would. */
export async function resolveHost(host: string): Promise<string[]> {
  const answers = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}

const issue = (message: string): FieldIssue[] => [{ field: 'url', message }];

/**
 * Field issues of an endpoint URL at registration: http(s) only, no user info, bounded length, no
 * fragment; a literal or resolved address refused unless allowPrivate. `lookup` resolves a host
 * name (default: the system resolver; tests inject one).
 */
export async function checkEndpointUrl(
  url: string,
  allowPrivate: boolean,
  lookup: (host: string) => Promise<string[]> = resolveHost,
): Promise<FieldIssue[]> {
  if (url.length > ENDPOINT_URL_MAX_LENGTH) return issue(`must be at most ${ENDPOINT_URL_MAX_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return issue('must be an absolute http:// or https:// URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return issue('must use http:// or https://');
  if (parsed.username !== '' || parsed.password !== '') {
    return issue('must not contain a user name or password; put credentials in the path or verify the signature instead');
  }
  // even an empty fragment ("…#"): it is never sent, so it can only mislead
  if (url.includes('#')) return issue('must not contain a fragment (#…)');
  if (allowPrivate) return [];

  const host = parsed.hostname;
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIP(literal)) {
    const reason = forbiddenAddressReason(literal);
    return reason ? issue(`host ${literal} ${reason}; webhooks are sent only to public addresses`) : [];
  }
  // A name: names that always mean this machine are refused without asking DNS ("localhost.",
  // "api.localhost"); any other is refused when one of its addresses is.
  const name = host.replace(/\.$/, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return issue(`host ${host} is this machine (loopback); webhooks are sent only to public addresses`);
  }
  let addresses: string[];
  try {
    addresses = await lookup(host);
  } catch {
    return issue(`host ${host} could not be resolved; check the name (it must resolve when the endpoint is registered)`);
  }
  if (addresses.length === 0) return issue(`host ${host} has no address`);
  for (const address of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason) return issue(`host ${host} resolves to ${address}, which ${reason}; webhooks are sent only to public addresses`);
  }
  return [];
}
