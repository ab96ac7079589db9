// Test events and redeliveries are sent by a person, not by a write, so nothing else bounds them:
// one organization sending them without limit could fill the delivery queue (issue 28, item 3).
// They are counted per organization in the shared rate-limit store (every node sees the same
// count) against WEBHOOK_MANUAL_SENDS_PER_MIN; past it the send is refused with
// `429 rate_limit_exceeded` and when to retry. `cds`, run by the operator, has no limiter and is not
// counted.
import type { AdminContext } from '../context.ts';
import type { RateLimitStore } from '../../storage/ratelimit/store.ts';
import { hitLimit, rateLimitExceeded } from '../../storage/ratelimit/limiter.ts';

/** The default when the context carries no settings (config.ts's default). */
const DEFAULT_MANUAL_SENDS = { max: 30, windowSec: 60 };

export async function countManualSend(ctx: AdminContext & { limiter?: RateLimitStore }): Promise<void> {
  if (!ctx.limiter) return;
  const limit = ctx.webhooks?.manualSends ?? DEFAULT_MANUAL_SENDS;
  const state = await hitLimit(ctx.limiter, 'webhook-manual', ctx.actor.organizationId, limit, ctx.now());
  if (state.exceeded) {
    throw rateLimitExceeded(
      state.retryAfterSec,
      `At most ${limit.max} test events and redeliveries per ${limit.windowSec} s per organization`,
    );
  }
}
