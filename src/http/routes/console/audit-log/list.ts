// GET /console/api/audit-log: administrative actions of the organization, newest first.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AUDIT_ACTIONS, listAuditLog } from '../../../../domain/console/audit.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { Meta } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors } from '../schemas.ts';

const Query = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'meta.nextCursor of the previous page' })),
  },
  { additionalProperties: false },
);

const Entry = Type.Object({
  id: Type.String(),
  at: Type.Integer({ description: 'Epoch ms' }),
  actor: Type.Object({ type: Type.Enum(['admin', 'cli']), label: Type.String({ description: 'The administrator\'s email, or the operator and host for cds' }) }),
  action: Type.Enum([...AUDIT_ACTIONS]),
  target: Type.Union([Type.Object({ type: Type.String(), id: Type.String(), label: Type.String() }), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
});

export default function auditLogRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/console/api/audit-log',
    {
      config: { console: 'session' },
      schema: {
        tags: ['console'],
        summary: 'The audit log',
        security: CONSOLE_SECURITY,
        querystring: Query,
        response: {
          200: Type.Object({ data: Type.Array(Entry), meta: Type.Intersect([Meta, Type.Object({ nextCursor: Type.Union([Type.String(), Type.Null()]) })]) }),
          ...consoleErrors(),
        },
      },
    },
    async (request) => {
      const page = await listAuditLog({
        ctx: adminContextOf(system, request),
        input: { limit: request.query.limit ?? 50, cursor: request.query.cursor },
      });
      return { data: page.entries, meta: { requestId: request.id, nextCursor: page.nextCursor } };
    },
  );
}
