// GET /console/api/session: who is signed in (the console calls it on load), with the CSRF token.
import type { FastifyInstance } from 'fastify';
import { consoleSessionOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { Session } from '../../../../domain/console/schema.ts';
import { CONSOLE_SECURITY, consoleErrors } from '../schemas.ts';

export default function getSessionRoute(app: FastifyInstance, _deps: RouteDeps) {
  app.get(
    '/console/api/session',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'getConsoleSession',
        tags: ['console'],
        summary: 'The signed-in administrator',
        description: 'The administrator of the current session, with its organization and CSRF token.',
        security: CONSOLE_SECURITY,
        response: { 200: Envelope(Session, 'The signed-in administrator.'), ...consoleErrors() },
      },
    },
    async (request) => {
      const { sessionId: _internal, ...data } = consoleSessionOf(request);
      return envelope(request, data);
    },
  );
}
