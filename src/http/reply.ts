import type { FastifyRequest } from 'fastify';

/** The success envelope: `{ data, meta: { requestId, …extra } }`. */
export function envelope<T>(request: FastifyRequest, data: T, extraMeta: Record<string, unknown> = {}) {
  return { data, meta: { requestId: request.id, ...extraMeta } };
}
