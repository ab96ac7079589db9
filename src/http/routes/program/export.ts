// GET /v1/program: the credential's organization's program as a document (an extension, issue 25):
// JSON in the envelope by default; YAML, the bare document ready to edit and apply back, when the
// Accept header asks for application/yaml. Needs the read scope of every resource in the
// organization's plan; kinds the plan leaves out are left out (src/domain/program/credential-door.ts).
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { exportProgramForCredential } from '../../../domain/program/credential-door.ts';
import { ProgramDocument } from '../../../domain/program/document-schema.ts';
import { PROGRAM_SCHEMA_PATH, schemaComment } from '../../../formats/program/schema-file.ts';
import { requestContext } from '../../plugins/auth.ts';
import { envelope } from '../../reply.ts';
import { YAML_TYPES } from '../../program-body.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';

/** Whether the Accept header prefers YAML to JSON (a listed YAML type, before any JSON type). */
function wantsYaml(accept: string | undefined): boolean {
  const types = (accept ?? '').split(',').map((t) => t.split(';')[0].trim().toLowerCase());
  const yaml = types.findIndex((t) => (YAML_TYPES as readonly string[]).includes(t));
  const json = types.indexOf('application/json');
  return yaml !== -1 && (json === -1 || yaml < json);
}

export default function exportProgramRoute(app: FastifyInstance, { system, config }: RouteDeps) {
  app.get(
    '/v1/program',
    {
      schema: {
        operationId: 'exportProgram',
        tags: ['program'],
        summary: "Export the organization's program as a document (extension)",
        description:
          'Extension (issue 25): every record of the program, named by keys, in the format `PUT /v1/program` applies: export, edit, apply. ' +
          '`Accept: application/yaml` answers the bare document as YAML (with the `yaml-language-server` line); otherwise JSON in the envelope. ' +
          "Needs the read scope of every resource the organization's plan includes; kinds the plan leaves out are left out of the document. " +
          `JSON Schema of the document: \`GET ${PROGRAM_SCHEMA_PATH}\`.`,
        security: [{ bearerAuth: ['framework:read', 'control:read', 'policy:read', 'evidence:read', 'test:read', 'vulnerability:read'] }],
        response: {
          200: {
            ...Envelope(ProgramDocument, 'The program document (in JSON, in the envelope; as YAML, the bare document).'),
            content: undefined,
          },
          ...v1Errors({ 403: 'forbidden (the message names every missing read scope) or plan_restricted' }),
        },
      },
    },
    async (request, reply) => {
      const ctx = requestContext(system, request);
      const document = await exportProgramForCredential({ ctx });
      if (wantsYaml(request.headers.accept)) {
        return reply
          .type('application/yaml; charset=utf-8')
          .serializer((payload: unknown) => payload as string)
          .send(`${schemaComment(config)}\n${stringify(document, { lineWidth: 0 })}`);
      }
      return reply.send(envelope(request, document));
    },
  );
}
