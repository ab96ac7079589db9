// The one readiness check, shared by the API port's /readyz (up or not) and the operations
// listener's /readyz (which dependency is down).
import { DependencyUnavailableError } from '../../../shared/errors.ts';
import { asDependencyError } from '../../../storage/db/errors.ts';
import type { Db } from '../../../storage/db/connect.ts';
import type { RateLimitStore } from '../../../storage/ratelimit/store.ts';

export interface ReadinessChecks {
  database: string;
  rateLimitStore: string;
}

/** Resolves with what was checked; throws DependencyUnavailableError naming the dependency that is down. */
export async function checkReadiness(db: Db, store: RateLimitStore): Promise<ReadinessChecks> {
  try {
    await db.ping();
  } catch (err) {
    throw asDependencyError(err) ?? new DependencyUnavailableError('database', 'ping failed', { cause: err });
  }
  await store.ping();
  return { database: db.dialect, rateLimitStore: store.kind };
}
