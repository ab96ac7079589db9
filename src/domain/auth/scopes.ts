// Scopes, access levels and plans: which credential may touch which resource.
import { ServiceError } from '../../shared/errors.ts';
import type { DataVersions } from '../../shared/data-versions.ts';
import { RESOURCES, type Resource } from '../../shared/vocabulary.ts';

// The plan resources are vocabulary (src/shared/vocabulary.ts): the kind contract names them too.
export { RESOURCES, type Resource };

export const ACCESS_LEVELS = ['read_only', 'read_write'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export type Scope = `${Resource}:${'read' | 'write'}`;

/** Read Only holds every read scope; Read & Write adds every write scope. */
export function scopesFor(level: AccessLevel): Scope[] {
  const reads = RESOURCES.map((r) => `${r}:read` as Scope);
  if (level === 'read_only') return reads;
  return [...reads, ...RESOURCES.map((r) => `${r}:write` as Scope)];
}

export interface Actor {
  organizationId: string;
  credentialId: string;
  scopes: ReadonlySet<string>;
  plan: ReadonlySet<string>;
  /** the organization's data versions when the request was authenticated (they key cached results) */
  dataVersions: DataVersions;
}

/**
 * Throws unless the actor may perform `action` on `resource`: a write scope also grants reads of
 * the same resource (never of another); the plan is checked after the scope.
 */
export function authorize(actor: Actor, resource: Resource, action: 'read' | 'write'): void {
  const allowed =
    action === 'read'
      ? actor.scopes.has(`${resource}:read`) || actor.scopes.has(`${resource}:write`)
      : actor.scopes.has(`${resource}:write`);
  if (!allowed) {
    const needed = action === 'read' ? `${resource}:read or ${resource}:write` : `${resource}:write`;
    throw new ServiceError('forbidden', `This credential lacks the scope ${needed}.`);
  }
  if (!actor.plan.has(resource)) {
    throw new ServiceError('plan_restricted', `The organization's plan does not include ${resource} data.`);
  }
}

/** Parses a plan given as a comma-separated list of resource names; throws on unknown names. */
export function parsePlan(input: string): Resource[] {
  const names = input
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(RESOURCES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new ServiceError('validation_failed', `Unknown plan resource: ${unknown.join(', ')}. Allowed: ${RESOURCES.join(', ')}.`, [
      { field: 'plan', message: `must list only ${RESOURCES.join(', ')}` },
    ]);
  }
  return [...new Set(names)] as Resource[];
}
