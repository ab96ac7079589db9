// What route files receive from the app: configuration, the system context for domain verbs,
// the rate-limit store and the metrics.
import type { Config } from '../../config.ts';
import type { SystemContext } from '../../domain/context.ts';
import type { RateLimitStore } from '../../storage/ratelimit/store.ts';
import type { Metrics } from '../plugins/metrics.ts';

export interface RouteDeps {
  config: Config;
  system: SystemContext;
  store: RateLimitStore;
  metrics: Metrics;
}
