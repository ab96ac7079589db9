// The shapes of a check-results import as the API documents them (POST /v1/tests/results/imports):
// the query that names the report's format and scope, and the domain's answer
// (domain/tests/import-results-schema.ts) with the format names of the registry
// (src/formats/checks/formats.ts) as its enum; the SDK's and the CLI's types follow.
import { Type } from 'typebox';
import { CHECK_FORMATS, CHECK_FORMAT_ENTRIES } from '../../formats/checks/formats.ts';
import { TestResultsImport as DomainResult } from '../../domain/tests/import-results-schema.ts';
import { MAX_NAME } from '../../domain/vulnerabilities/scanned-finding.ts';

const descriptionOf = (schema: object) => (schema as { description?: string }).description;

/** The formats as the route's description lists them: "Prowler OCSF JSON, …". */
export const checkFormatTitles = () => CHECK_FORMAT_ENTRIES.map((f) => `${f.title} (\`${f.name}\`)`).join(', ');

/** The format as sent: any text up to 40 characters, so an unknown name is answered with the list of known ones. */
export const CheckImportFormat = Type.String({
  minLength: 1,
  maxLength: 40,
  description: `The report's format: one of ${CHECK_FORMATS.map((f) => `\`${f}\``).join(', ')} (docs/check-results.md).`,
});

export const CheckImportScope = Type.String({
  minLength: 1,
  maxLength: MAX_NAME,
  description:
    'What was checked (a cloud account, a cluster, a repository): a re-import of the scope replaces the resources it reported before. Default: the scope the report names (docs/check-results.md), else none.',
});

export const CheckImportQuery = Type.Object(
  { format: Type.Optional(CheckImportFormat), scope: Type.Optional(CheckImportScope) },
  { additionalProperties: false },
);

/** The import's answer: the domain's, its `format` one of the registry's names. */
export const TestResultsImport = Type.Object({
  ...DomainResult.properties,
  format: Type.Enum([...CHECK_FORMATS], { description: descriptionOf(DomainResult.properties.format) }),
});
