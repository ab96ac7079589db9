// GET /console/api/usage: requests and rate-limited requests per credential, hourly, last 24 hours.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { usageReport } from '../../../../domain/console/usage.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors } from '../schemas.ts';

const Bucket = Type.Object({
  start: Type.Integer({ description: 'Epoch ms of the start of the hour' }),
  requests: Type.Integer({ description: 'Authenticated /v1 requests, rate-limited ones included' }),
  rateLimited: Type.Integer({ description: 'Of those, requests refused with 429' }),
});

const Usage = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  bucketMs: Type.Integer(),
  credentials: Type.Array(
    Type.Object({
      credentialId: Type.String(),
      name: Type.String(),
      clientId: Type.String(),
      status: Type.Enum(['active', 'revoked']),
      totals: Type.Object({ requests: Type.Integer(), rateLimited: Type.Integer() }),
      buckets: Type.Array(Bucket, { description: '24 hourly buckets, oldest first; the last is the current hour' }),
    }),
  ),
});

export default function usageRoute(app: FastifyInstance, { system, usage }: RouteDeps) {
  app.get(
    '/console/api/usage',
    {
      config: { console: 'session' },
      schema: {
        tags: ['console'],
        summary: 'API usage per credential, last 24 hours',
        security: CONSOLE_SECURITY,
        response: { 200: Envelope(Usage), ...consoleErrors() },
      },
    },
    async (request) => {
      const ctx = adminContextOf(system, request);
      await usage.flush(); // this process's pending counts first
      return envelope(request, await usageReport({ ctx }));
    },
  );
}
