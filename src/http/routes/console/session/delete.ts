// DELETE /console/api/session: sign out; the session ends on every node at once.
import type { FastifyInstance } from 'fastify';
import { signOut } from '../../../../domain/console/sign-out.ts';
import { clearSessionCookie, consoleSessionOf, originOf } from '../../../plugins/console-session.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors, CsrfHeaders } from '../schemas.ts';

export default function deleteSessionRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.delete(
    '/console/api/session',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'deleteConsoleSession',
        tags: ['console'],
        summary: 'Sign out',
        description: 'Ends the current session and clears its cookie.',
        security: CONSOLE_SECURITY,
        headers: CsrfHeaders,
        response: { 204: { description: 'Signed out; the cookie is cleared.', type: 'null' }, ...consoleErrors() },
      },
    },
    async (request, reply) => {
      await signOut({ ctx: system, input: { session: consoleSessionOf(request), origin: originOf(request) } });
      clearSessionCookie(request, reply);
      return reply.code(204).send();
    },
  );
}
