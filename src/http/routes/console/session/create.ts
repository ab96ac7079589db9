// POST /console/api/session: sign in with email and password; sets the HttpOnly session cookie.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { signIn } from '../../../../domain/console/sign-in.ts';
import { PASSWORD_MAX_LENGTH } from '../../../../domain/console/passwords.ts';
import { originOf, setSessionCookie } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { Session } from '../../../../domain/console/schema.ts';
import { consoleErrors } from '../schemas.ts';

const Body = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
  },
  { additionalProperties: false },
);

export default function createSessionRoute(app: FastifyInstance, { config, system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/console/api/session',
    {
      config: { console: 'public' },
      schema: {
        operationId: 'createConsoleSession',
        tags: ['console'],
        security: [],
        summary: 'Sign in to the console',
        description:
          "Checks an administrator's email and password and starts a session in an HttpOnly, SameSite=Strict cookie. " +
          `Only failed attempts count: after ${config.console.signInLimit.max} failures for an email, each further attempt for it waits ` +
          `1 s, doubling to at most 60 s, after the previous one (429 with Retry-After meanwhile); a success forgets them. A client address ` +
          `may fail ${config.console.signInLimit.max * 10} times per ${config.console.signInLimit.windowSec} s.`,
        body: Body,
        response: {
          200: Envelope(Session, 'Signed in: the administrator and the CSRF token; the session cookie is set.'),
          ...consoleErrors({
            401: 'unauthorized: the email or password is wrong',
            429: 'rate_limit_exceeded: too many attempts; Retry-After says when to retry',
          }),
        },
      },
    },
    async (request, reply) => {
      const { token, session } = await signIn({
        ctx: system,
        input: { email: request.body.email, password: request.body.password, origin: originOf(request) },
      });
      setSessionCookie(request, reply, token, config.console.sessionMaxSec);
      const { sessionId: _internal, ...data } = session;
      return envelope(request, data);
    },
  );
}
