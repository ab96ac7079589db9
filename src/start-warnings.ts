// Settings that trade safety away for a reason the operator should keep in mind: each one that is
// on is logged as one warning line at every start (docs/operations.md, "Start-up warnings"), so
// a development setting that reached production shows in the logs.
import type { Config } from './config.ts';

export function startWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.webhooks.allowPrivateAddresses) {
    warnings.push(
      'WEBHOOKS_ALLOW_PRIVATE_ADDRESSES is on: webhook endpoints may point at loopback, private, link-local and cloud metadata addresses; meant for local development only.',
    );
  }
  if (typeof config.trustProxy === 'number') {
    warnings.push(
      `TRUST_PROXY=${config.trustProxy} believes the last ${config.trustProxy} hop(s) of X-Forwarded-For from any peer: a client that reaches the service without the proxy chooses its own address (rate limits, logs); prefer the proxies' addresses (e.g. TRUST_PROXY=10.0.0.0/8).`,
    );
  }
  return warnings;
}
