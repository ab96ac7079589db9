// The shapes of a scanner import as the API documents them (POST /v1/vulnerabilities/imports, GET
// /v1/jobs/{jobId}): the query that names the file's format and scope, and the domain's answers
// (domain/vulnerabilities/import-schema.ts, domain/jobs/schema.ts) with the format names of the
// registry (src/formats/scanners/formats.ts) as their enum. The OpenAPI document, the SDK's types
// and the CLI's list follow the registry; no format is named here.
import { Type, type Static } from 'typebox';
import { SCANNER_FORMATS, SCANNER_FORMAT_ENTRIES } from '../../formats/scanners/formats.ts';
import { ImportResult as DomainImportResult } from '../../domain/vulnerabilities/import-schema.ts';
import { MAX_NAME } from '../../domain/vulnerabilities/scanned-finding.ts';
import { Job as DomainJob } from '../../domain/jobs/schema.ts';
import { TestResultsImport } from './check-imports.ts';

const descriptionOf = (schema: object) => (schema as { description?: string }).description;

/** The formats as the route's description lists them: "SARIF 2.1.0, Trivy JSON, …". */
export const formatTitles = () => SCANNER_FORMAT_ENTRIES.map((f) => f.title).join(', ');

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

/** The import's answer: the domain's, its `format` one of the registry's names. */
export const ImportResult = Type.Object({
  ...DomainImportResult.properties,
  format: Type.Enum([...SCANNER_FORMATS], { description: descriptionOf(DomainImportResult.properties.format) }),
});

/** A job, its result the documented answer of its kind's import. */
export const Job = Type.Object(
  {
    ...DomainJob.properties,
    result: Type.Optional(
      Type.Union([ImportResult, TestResultsImport], {
        description: 'When succeeded: the answer of the import (`vulnerabilities.import` or `tests.importResults`).',
      }),
    ),
  },
  { description: descriptionOf(DomainJob) },
);

/** A job as the domain answers it, typed as documented: its result's `format` is always one of the registry's. */
export const documentedJob = (job: DomainJob) => job as Static<typeof Job>;
