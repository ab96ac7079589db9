// The User-Agent every request sends, as stripe-node and octokit do: the SDK and its version, then
// the runtime and its version, so the service's operators can tell clients apart and ask users of
// an old release to upgrade. A caller's product name goes first (`userAgent` option), as RFC 9110
// orders product tokens from most to least significant.
import { SDK_VERSION } from '../version.ts';

interface RuntimeGlobals {
  process?: { versions?: { node?: string; bun?: string } };
  Deno?: { version?: { deno?: string } };
}

export function runtimeToken(): string {
  const g = globalThis as RuntimeGlobals;
  if (g.Deno?.version?.deno) return `deno/${g.Deno.version.deno}`;
  if (g.process?.versions?.bun) return `bun/${g.process.versions.bun}`;
  if (g.process?.versions?.node) return `node/${g.process.versions.node}`;
  return 'runtime/unknown';
}

export function userAgent(prefix?: string): string {
  const own = `compliance-data-sdk/${SDK_VERSION} ${runtimeToken()}`;
  return prefix ? `${prefix} ${own}` : own;
}
