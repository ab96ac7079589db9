// POST /console/api/credentials: a new API credential; its secret is in this response only.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CREDENTIAL_NAME_MAX_LENGTH } from '../../../../domain/auth/credential-view.ts';
import { NewCredential } from '../../../../domain/auth/schema.ts';
import { ACCESS_LEVELS } from '../../../../domain/auth/scopes.ts';
import { createCredential } from '../../../../domain/auth/create-credential.ts';
import { validationFailed } from '../../../../shared/errors.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { CONSOLE_SECURITY, consoleErrors, CsrfHeaders, credentialView } from '../schemas.ts';

const Body = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: CREDENTIAL_NAME_MAX_LENGTH,
      description: 'A label for people, e.g. the integration using it.',
    }),
    accessLevel: Type.Enum([...ACCESS_LEVELS], { description: 'Read Only (every read scope) or Read & Write (adds every write scope).' }),
  },
  { additionalProperties: false },
);

export default function createConsoleCredentialRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/console/api/credentials',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'createConsoleCredential',
        tags: ['console'],
        summary: 'Create an API credential',
        description: 'The client secret is returned in this response only; the service keeps just its hash.',
        security: CONSOLE_SECURITY,
        headers: CsrfHeaders,
        body: Body,
        response: {
          201: Envelope(NewCredential, 'The credential was created: with its client secret, shown this once.'),
          ...consoleErrors({
            400: 'validation_failed: the body is invalid, or the organization already has the most active credentials allowed (MAX_ACTIVE_CREDENTIALS_PER_ORG; the message names it)',
          }),
        },
      },
    },
    async (request, reply) => {
      const ctx = adminContextOf(system, request);
      if (request.body.name.trim() === '') throw validationFailed([{ field: 'name', message: 'must not be blank' }]);
      const created = await createCredential({ ctx, input: { accessLevel: request.body.accessLevel, name: request.body.name } });
      reply.code(201);
      return envelope(request, { ...credentialView(created), clientSecret: created.clientSecret });
    },
  );
}
