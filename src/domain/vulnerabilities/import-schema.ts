// The shapes of a scanner import (POST /v1/vulnerabilities/imports, an extension): the query that
// names the file's format and scope, and the answer that counts what happened. Defined once, used
// to validate, to type, to serialize, in the OpenAPI document and by the SDK and CLI.
import { Type, type Static } from 'typebox';
import { SCANNER_FORMATS } from '../../formats/scanners/signatures.ts';
import { VULNERABILITY_SOURCES } from '../../shared/vocabulary.ts';
import { MAX_NAME } from './scanned-finding.ts';

/** The largest file an import reads unless IMPORT_MAX_BYTES says otherwise: 100 MB, like uploads. */
export const DEFAULT_IMPORT_MAX_BYTES = 100 * 1024 * 1024;

const formatText = `The file's format: one of ${SCANNER_FORMATS.map((f) => `\`${f}\``).join(', ')} (docs/scanner-formats.md).`;

/** The format as sent: any text up to 40 characters, so an unknown name is answered with the list of known ones. */
export const ImportFormat = Type.String({ minLength: 1, maxLength: 40, description: formatText });

export const ImportScope = Type.String({
  minLength: 1,
  maxLength: MAX_NAME,
  description:
    'What was scanned (the image, repository or target): findings of this scope and source that the file no longer reports are closed. Default: the scope the file names (docs/scanner-formats.md), else none.',
});

/** The query of a raw-body import (a multipart import sends the same as text fields before its `file` part). */
export const ImportQuery = Type.Object({ format: ImportFormat, scope: Type.Optional(ImportScope) }, { additionalProperties: false });

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const ImportResult = Type.Object({
  format: Type.Enum([...SCANNER_FORMATS], { description: 'The format the file was read as.' }),
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
});

export type ImportQuery = Static<typeof ImportQuery>;
export type ImportResult = Static<typeof ImportResult>;
