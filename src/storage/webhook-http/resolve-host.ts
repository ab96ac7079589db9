// The system resolver, as the webhook sender and the endpoint URL check use it: every address a
// name resolves to, in the resolver's order (tests inject their own lookup instead).
import { lookup as dnsLookup } from 'node:dns/promises';

/** Resolves a host name to all its addresses (A and AAAA), as the delivery's connection would. */
export async function resolveHost(host: string): Promise<string[]> {
  const answers = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}
