// GET /console/api/audit-log: administrative actions of the organization, newest first.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listAuditLog } from '../../../../domain/console/list-audit-log.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { Meta } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { AuditEntry } from '../../../../domain/console/schema.ts';
import { CONSOLE_SECURITY, consoleErrors } from '../schemas.ts';

const Query = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'meta.nextCursor of the previous page' })),
  },
  { additionalProperties: false },
);

export default function auditLogRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/console/api/audit-log',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'listConsoleAuditLog',
        tags: ['console'],
        summary: 'The audit log',
        description:
          'Administrative actions of the organization (sign-ins, credential changes), newest first, one page at a time: pass meta.nextCursor back as `cursor` until it is null.',
        security: CONSOLE_SECURITY,
        querystring: Query,
        response: {
          200: Type.Object(
            {
              data: Type.Array(AuditEntry),
              meta: Type.Intersect([Meta, Type.Object({ nextCursor: Type.Union([Type.String(), Type.Null()]) })]),
            },
            { description: 'One page of audit entries, with the cursor of the next page.' },
          ),
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
