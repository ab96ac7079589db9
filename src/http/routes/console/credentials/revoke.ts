// POST /console/api/credentials/{credentialId}/revoke: every token of the credential stops working
// at once (401 token_revoked); the credential stays listed as revoked.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { revokeCredential } from '../../../../domain/auth/revoke-credential.ts';
import { adminContextOf } from '../../../plugins/console-session.ts';
import { envelope } from '../../../reply.ts';
import { Envelope } from '../../../schemas/common.ts';
import type { RouteDeps } from '../../deps.ts';
import { Credential } from '../../../../domain/auth/schema.ts';
import { CONSOLE_SECURITY, consoleErrors, CsrfHeaders, credentialView } from '../schemas.ts';

const Params = Type.Object({ credentialId: Type.String({ maxLength: 100 }) });

export default function revokeConsoleCredentialRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/console/api/credentials/:credentialId/revoke',
    {
      config: { console: 'session' },
      schema: {
        operationId: 'revokeConsoleCredential',
        tags: ['console'],
        summary: 'Revoke an API credential',
        description: 'Revoking an already revoked credential changes nothing and answers 200.',
        security: CONSOLE_SECURITY,
        headers: CsrfHeaders,
        params: Params,
        response: {
          200: Envelope(Credential, 'The credential, now revoked.'),
          ...consoleErrors({ 404: 'not_found: no such credential in the organization' }),
        },
      },
    },
    async (request) => {
      const revoked = await revokeCredential({
        ctx: adminContextOf(system, request),
        input: { credentialId: request.params.credentialId },
      });
      return envelope(request, credentialView(revoked));
    },
  );
}
