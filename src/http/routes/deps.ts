// What route files receive from the app: configuration, the system context for domain verbs (the
// rate-limit store is its `limiter`), the metrics, the usage counters and the kept answer bytes.
import type { Config } from '../../config.ts';
import type { SystemContext } from '../../domain/context.ts';
import type { Metrics } from '../plugins/metrics.ts';
import type { UsageRecorder } from '../../domain/console/usage-recorder.ts';
import type { AnswerBytes } from '../answer-bytes.ts';
import type { WarmReads } from '../warm-reads.ts';
import type { WorkerPool } from '../../workers/pool.ts';

export interface RouteDeps {
  config: Config;
  system: SystemContext;
  metrics: Metrics;
  /** per-credential request counts for the console's usage page */
  usage: UsageRecorder;
  /** the serialized bytes of cached answers (src/http/reply.ts sendEnvelope) */
  answers: AnswerBytes;
  /** warm reads answered before routing (src/http/warm-reads.ts); absent: every request goes through Fastify */
  warm?: WarmReads;
  /** the threads CPU-heavy work runs on (src/workers/pool.ts), off the event loop */
  workers: WorkerPool;
}
