// What route files receive from the app: configuration, the system context for domain verbs (the
// rate-limit store is its `limiter`), the metrics and the usage counters.
import type { Config } from '../../config.ts';
import type { SystemContext } from '../../domain/context.ts';
import type { Metrics } from '../plugins/metrics.ts';
import type { UsageRecorder } from '../../domain/console/usage-recorder.ts';

export interface RouteDeps {
  config: Config;
  system: SystemContext;
  metrics: Metrics;
  /** per-credential request counts for the console's usage page */
  usage: UsageRecorder;
}
