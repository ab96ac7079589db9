// What route files receive from the app: configuration, the system context for domain verbs,
// the rate-limit store, the metrics and the usage counters.
import type { Config } from '../../config.ts';
import type { SystemContext } from '../../domain/context.ts';
import type { RateLimitStore } from '../../storage/ratelimit/store.ts';
import type { Metrics } from '../plugins/metrics.ts';
import type { UsageRecorder } from '../../domain/console/usage.ts';

export interface RouteDeps {
  config: Config;
  system: SystemContext;
  store: RateLimitStore;
  metrics: Metrics;
  /** per-credential request counts for the console's usage page */
  usage: UsageRecorder;
}
