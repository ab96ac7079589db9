// TRUST_PROXY as Fastify's `trustProxy` option. Fastify 5 ignores a bare hop count (it trusts
// nothing, since a count cannot tell a proxy from a client that reached the port directly), so a
// count becomes a function trusting exactly that many hops next to the server: the right-most
// X-Forwarded-For entries that the operator's own proxies appended. It is only safe when the port
// is reachable through those proxies alone; a list of proxy addresses is safe either way.
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';

export function trustProxyOption(setting: Config['trustProxy']): FastifyServerOptions['trustProxy'] {
  if (typeof setting === 'number') {
    const hops = setting;
    return (_address: string, hop: number) => hop < hops;
  }
  return setting;
}
