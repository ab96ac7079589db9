// How long a console session lives and how often signing in may be tried (config.ts fills it).
// Its own file so the verbs' context (domain/context.ts) names it without importing session.ts,
// which imports the context's actor.
import type { RateLimitSettings } from '../../config.ts';

export interface SessionSettings {
  idleMs: number;
  maxMs: number;
  signInLimit: RateLimitSettings;
}
