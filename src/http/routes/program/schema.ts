// GET /v1/program/schema: the program document's JSON Schema, for editors and tools. No credential:
// it describes a format, and holds nothing of any organization. Its `$id` is where this deployment
// serves it (src/formats/program/schema-file.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PROGRAM_SCHEMA_PATH, programJsonSchema } from '../../../formats/program/schema-file.ts';
import { listeningBaseUrl } from '../../openapi/document.ts';
import type { RouteDeps } from '../deps.ts';

export default function getProgramSchemaRoute(app: FastifyInstance, { config }: RouteDeps) {
  // Made at the first request (the address is known once the server listens), then kept.
  let body: string | undefined;
  app.get(
    PROGRAM_SCHEMA_PATH,
    {
      schema: {
        operationId: 'getProgramSchema',
        tags: ['program'],
        summary: 'The JSON Schema of program documents (extension)',
        description:
          'The JSON Schema (draft-07) a program document follows, generated from the schemas the service validates with: point an editor at it ' +
          '(`# yaml-language-server: $schema=<this URL>` as the first line of a YAML document). Needs no credential. ' +
          'The same file is kept in the repository as `schemas/program.schema.json`.',
        security: [],
        response: {
          200: Type.Object({}, { additionalProperties: true, description: 'The JSON Schema (application/schema+json).' }),
        },
      },
    },
    async (_request, reply) => {
      body ??= JSON.stringify(
        programJsonSchema(`${config.publicBaseUrl ?? listeningBaseUrl(app.server.address(), config)}${PROGRAM_SCHEMA_PATH}`),
      );
      return reply
        .type('application/schema+json; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .serializer((payload: unknown) => payload as string)
        .send(body);
    },
  );
}
