// The program document's JSON Schema (docs/program-documents.md, "Editor setup"): generated from
// the TypeBox schema the code validates with (src/domain/program/document-schema.ts), so an editor
// and the service check the same rules. Kept in the repository as schemas/program.schema.json
// (`npm run generate`; test/unit/program-schema.test.ts fails when it is stale) and served at
// GET /v1/program/schema with the deployment's own address as its `$id`.
import type { Config } from '../../config.ts';
import { ProgramDocument } from '../../domain/program/document-schema.ts';

/** Where the service serves the schema. */
export const PROGRAM_SCHEMA_PATH = '/v1/program/schema';

/**
 * The `$id` of the file kept in the repository: the schema's path on a default local install. A
 * deployment serves it with its own address (PUBLIC_BASE_URL) instead.
 */
export const PROGRAM_SCHEMA_DEFAULT_ID = `http://127.0.0.1:3000${PROGRAM_SCHEMA_PATH}`;

/** The address clients use for this deployment: PUBLIC_BASE_URL, else where the API listens. */
export function deploymentBaseUrl(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** The schema's URL on this deployment. */
export const programSchemaUrl = (config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>) =>
  `${deploymentBaseUrl(config)}${PROGRAM_SCHEMA_PATH}`;

/** The comment that points a YAML language server at the schema: the first line of an exported YAML document. */
export const schemaComment = (config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>) =>
  `# yaml-language-server: $schema=${programSchemaUrl(config)}`;

/** The JSON Schema (draft-07, which every YAML language server reads) of a program document. */
export function programJsonSchema(id = PROGRAM_SCHEMA_DEFAULT_ID): Record<string, unknown> {
  // TypeBox schemas are JSON Schema; its own markers are symbols, which JSON leaves out.
  const body = JSON.parse(JSON.stringify(ProgramDocument)) as Record<string, unknown>;
  return { $schema: 'http://json-schema.org/draft-07/schema#', $id: id, ...body };
}

/** The file's text: two-space JSON and a final newline. */
export const programJsonSchemaText = (id?: string) => `${JSON.stringify(programJsonSchema(id), null, 2)}\n`;
