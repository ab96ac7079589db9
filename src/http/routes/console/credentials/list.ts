// GET /console/api/credentials: the organization's API credentials, revoked ones included, newest first.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { listCredentials } from '../../../../domain/auth/list-credentials.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { Credential } from '../../../../domain/auth/schema.ts';
import { CONSOLE_SECURITY, consoleErrors, credentialView } from '../schemas.ts';

export default function listConsoleCredentialsRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.get(
    '/console/api/credentials',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'listConsoleCredentials',
        tags: ['console'],
        summary: 'List API credentials',
        description: 'Every API credential of the organization, active and revoked, without secrets.',
        security: CONSOLE_SECURITY,
        response: { 200: Envelope(Type.Array(Credential), 'The credentials.'), ...consoleErrors() },
      },
    },
    async (request) => {
      const all = await listCredentials({ ctx: adminContextOf(system, request) });
      return envelope(request, all.reverse().map(credentialView));
    },
  );
}
