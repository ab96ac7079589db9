// Which addresses may receive webhooks (issue 15, docs/decisions/events-and-webhooks.md "Webhook endpoints,
// secrets and address safety"). A webhook is a request the service makes on an administrator's behalf to
// a URL the administrator chose: without a policy, an endpoint on 127.0.0.1, 10.x, or the cloud's
// metadata address would turn the service into a proxy into its own network (SSRF). The policy is
// applied twice: to the URL at registration (checkEndpointUrl, with the host resolved), and to the
// address actually connected to at delivery time, after DNS (the delivery worker calls
// forbiddenAddressReason), since a name may resolve differently later (DNS rebinding).
//
// Addresses are parsed here, never compared as text: the same address has many spellings
// (0x7f.1, 017700000001, ::ffff:127.0.0.1, ::ffff:7f00:1, 0:0:0:0:0:0:0:1). The WHATWG URL
// parser, the one fetch uses, reads the spelling, so the policy sees the address the client
// would dial; ipaddr.js matches it against CIDR ranges and takes the IPv4 address out of the IPv6
// forms that carry one (docs/dependencies.md).
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { FieldIssue } from '../../shared/errors.ts';
import { resolveHost } from '../../storage/webhook-http/resolve-host.ts';

/** Longest URL accepted for an endpoint; longer is refused rather than cut. */
export const ENDPOINT_URL_MAX_LENGTH = 2048;

type Range<A> = [range: [A, number], reason: string];
const ranges = <A extends ipaddr.IPv4 | ipaddr.IPv6>(list: Array<[cidr: string, reason: string]>): Array<Range<A>> =>
  list.map(([cidr, reason]) => [ipaddr.parseCIDR(cidr) as [A, number], reason]);

// Specific entries first: the first match names the reason. Cloud metadata services are named as
// such so an administrator understands the refusal.
const IPV4_RANGES = ranges<ipaddr.IPv4>([
  ['169.254.169.254/32', 'is a cloud metadata address'],
  ['168.63.129.16/32', 'is a cloud metadata address'],
  ['100.100.100.200/32', 'is a cloud metadata address'],
  ['255.255.255.255/32', 'is a broadcast address'],
  ['0.0.0.0/8', 'is an unspecified address'],
  ['10.0.0.0/8', 'is a private address'],
  ['100.64.0.0/10', 'is a shared (carrier-grade NAT) address'],
  ['127.0.0.0/8', 'is a loopback address'],
  ['169.254.0.0/16', 'is a link-local address'],
  ['172.16.0.0/12', 'is a private address'],
  ['192.0.0.0/24', 'is a reserved address'],
  ['192.0.2.0/24', 'is a documentation address'],
  ['192.88.99.0/24', 'is a reserved address'],
  ['192.168.0.0/16', 'is a private address'],
  ['198.18.0.0/15', 'is a reserved (benchmarking) address'],
  ['198.51.100.0/24', 'is a documentation address'],
  ['203.0.113.0/24', 'is a documentation address'],
  ['224.0.0.0/4', 'is a multicast address'],
  ['240.0.0.0/4', 'is a reserved address'],
]);

const IPV6_RANGES = ranges<ipaddr.IPv6>([
  ['fd00:ec2::254/128', 'is a cloud metadata address'],
  ['::/128', 'is an unspecified address'],
  ['::1/128', 'is a loopback address'],
  ['64:ff9b:1::/48', 'is a reserved (local NAT64) address'],
  ['100::/64', 'is a reserved (discard) address'],
  ['2001::/32', 'is a reserved (Teredo) address'],
  ['2001:db8::/32', 'is a documentation address'],
  ['fc00::/7', 'is a unique-local (private) address'],
  ['fe80::/10', 'is a link-local address'],
  ['fec0::/10', 'is a site-local (private) address'],
  ['ff00::/8', 'is a multicast address'],
]);

// IPv6 ranges that carry an IPv4 address, which is what the connection reaches.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];
const UNSPECIFIED_OR_LOOPBACK = ipaddr.parseCIDR('::/127') as [ipaddr.IPv6, number]; // :: and ::1, not IPv4
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16') as [ipaddr.IPv6, number];

/**
 * The IPv4 address a string denotes, in the liberal forms an HTTP client also accepts
 * (0x7f.1, 017700000001, 127.1): the WHATWG URL parser's host parsing decides, as fetch does.
 */
function parseIPv4(text: string): ipaddr.IPv4 | undefined {
  if (!/^[0-9a-fA-FxX.]+$/.test(text)) return undefined;
  try {
    const host = new URL(`http://${text}/`).hostname;
    return isIP(host) === 4 ? ipaddr.IPv4.parse(host) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The IPv6 address a string denotes (a zone ID such as %eth0 dropped), read by the WHATWG URL
 * parser like IPv4 above: ipaddr.js alone would read a dotted tail as IPv4-mapped
 * (::0.0.0.1 as ::ffff:0.0.0.1), where the client connects to ::1.
 */
function parseIPv6(text: string): ipaddr.IPv6 | undefined {
  const address = text.replace(/%.*$/, '');
  if (isIP(address) !== 6) return undefined;
  try {
    return ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  } catch {
    return undefined;
  }
}

function reasonForIPv4(address: ipaddr.IPv4): string | undefined {
  return IPV4_RANGES.find(([range]) => address.match(range))?.[1];
}

const ipv4From = (bytes: number[]) => new ipaddr.IPv4(bytes);

/** Why `ip` may not receive webhooks, or undefined when it may. Anything that is not an IP address is refused. */
export function forbiddenAddressReason(ip: string): string | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const four = parseIPv4(bare);
  if (four) return reasonForIPv4(four);
  const six = parseIPv6(bare);
  if (!six) return 'is not an IP address';
  // IPv4 embedded in IPv6 reaches the IPv4 address: IPv4-mapped (::ffff:a.b.c.d), the deprecated
  // IPv4-compatible form (::a.b.c.d, but not :: or ::1), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
  const bytes = six.toByteArray();
  if (six.isIPv4MappedAddress()) return reasonForIPv4(six.toIPv4Address());
  if (six.match(IPV4_COMPATIBLE) && !six.match(UNSPECIFIED_OR_LOOPBACK)) return reasonForIPv4(ipv4From(bytes.slice(12)));
  if (six.match(NAT64)) return reasonForIPv4(ipv4From(bytes.slice(12)));
  if (six.match(SIX_TO_FOUR)) return reasonForIPv4(ipv4From(bytes.slice(2, 6)));
  return IPV6_RANGES.find(([range]) => six.match(range))?.[1];
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
