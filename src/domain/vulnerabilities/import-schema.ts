// The answer of a scanner import (POST /v1/vulnerabilities/imports, an extension): what the file
// was read as and counts of what happened. Defined once, used to type and to serialize; the HTTP
// door documents it with the registry's format names as the enum of `format`
// (src/http/schemas/scanner-imports.ts), which the OpenAPI document, the SDK and the CLI follow.
import { Type, type Static } from 'typebox';
import { VULNERABILITY_SOURCES } from '../../shared/vocabulary.ts';
import { MAX_WARNINGS, ScanWarning } from './scanned-finding.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const ImportResult = Type.Object({
  format: Type.String({ description: 'The format the file was read as.' }),
  scope: Type.Union([Type.String(), Type.Null()], {
    description: 'The scope the findings were matched in: the request’s, else the file’s; null when neither names one.',
  }),
  source: Type.Enum([...VULNERABILITY_SOURCES], {
    description: 'The source the findings got: the tool’s own when it is one of the spec’s (SARIF), otherwise `import`.',
  }),
  created: Count('New findings.'),
  updated: Count('Findings already known whose fields or status changed (not counted as closed or reopened).'),
  closed: Count('Findings closed: no longer reported in this scope and source, or closed by the tool (VEX fixed).'),
  reopened: Count('Closed findings reported again.'),
  unchanged: Count('Findings reported again with nothing changed: not written, no event.'),
  findingIds: Type.Array(Type.String(), {
    description: 'The IDs of the findings created, updated, closed or reopened, as the API shows them (`<source>%23<key>`).',
  }),
  warnings: Type.Optional(
    Type.Array(ScanWarning, {
      maxItems: MAX_WARNINGS,
      description:
        'Present when the file had something the import took with a gap (an OSV-Scanner package without a name) or left out (Trivy’s licenses): one entry per kind, counted (docs/scanner-formats.md, "Warnings").',
    }),
  ),
});

export type ImportResult = Static<typeof ImportResult>;
