// One finding as a scanner file reports it, after a format parser (src/formats/<format>/) has mapped
// it and before the import pipeline matches it to the organization's findings. The bounds are the
// API's (./write-schema.ts, docs/decisions/writes-and-uploads.md), so whatever a parser yields can be stored and shown
// as is; parsers shorten what a real scanner routinely writes longer (docs/scanner-formats.md).
import { Type, type Static } from 'typebox';
import { SEVERITIES, VULNERABILITY_SOURCES } from '../../shared/vocabulary.ts';
import { FIX_AVAILABLE } from './shape.ts';

/** Longest finding key: the API's `vulnerabilityId` key bound (./write-schema.ts). */
export const MAX_SCANNED_KEY = 64;
/**
 * A scanned finding's key: URL-path-safe characters only (RFC 3986 unreserved), because the public
 * ID is `<source>%23<key>` used in paths as is. Built by src/formats/scanners/finding-key.ts.
 */
export const SCANNED_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/;
export const MAX_TITLE = 255;
export const MAX_TEXT = 750;
export const MAX_NAME = 255;
export const MAX_RESOURCES = 100;
export const MAX_TAGS = 3;
/**
 * Items held out of order, per file (a parser's, src/formats/scanners/held.ts; the import's, findings
 * read before the file names its scope): tools write the referred part first, so this stays empty.
 */
export const MAX_HELD = 10_000;
/** A justification is a note: notes are up to 2,000 characters (docs/decisions/program-writes.md, "Program documents"). */
export const MAX_JUSTIFICATION = 2000;
/** `api` is the API's own source: a file never claims it. */
export type ScannedSource = Exclude<(typeof VULNERABILITY_SOURCES)[number], 'api'>;
export const SCANNED_SOURCES = VULNERABILITY_SOURCES.filter((s): s is ScannedSource => s !== 'api');

const Name = Type.String({ minLength: 1, maxLength: MAX_NAME });

export const ScannedResource = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: MAX_NAME, description: 'The package (`name@version`), the file, the image.' }),
    type: Type.String({ minLength: 1, maxLength: MAX_NAME, description: '`package`, `file`, `container_image`, `repository`, …' }),
    tags: Type.Array(Name, { maxItems: MAX_TAGS, description: 'For a package: its ecosystem.' }),
  },
  { additionalProperties: false },
);

/** What the tool itself says about the finding (a SARIF suppression, a VEX analysis). */
export const ToolVerdict = Type.Union([
  Type.Object({ status: Type.Literal('open') }, { additionalProperties: false }),
  Type.Object(
    {
      status: Type.Literal('ignored'),
      justification: Type.String({ minLength: 1, maxLength: MAX_JUSTIFICATION, description: 'The tool’s reason, kept.' }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { status: Type.Literal('closed'), justification: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_JUSTIFICATION })) },
    { additionalProperties: false },
  ),
]);

export const ScannedFinding = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: MAX_SCANNED_KEY,
      pattern: SCANNED_KEY_PATTERN.source,
      description: 'Stable across scans of the same thing; never shared by two findings (docs/scanner-formats.md, "The key").',
    }),
    source: Type.Enum([...SCANNED_SOURCES], { description: 'The tool’s own source when it is one of the spec’s, otherwise `import`.' }),
    tool: Type.String({ minLength: 1, maxLength: MAX_NAME, description: 'The tool that reported it, as the file names it.' }),
    title: Type.String({ minLength: 1, maxLength: MAX_TITLE }),
    severity: Type.Enum([...SEVERITIES]),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TEXT })),
    remediation: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TEXT })),
    cvssScore: Type.Optional(Type.Number({ minimum: 0, maximum: 10 })),
    fixAvailable: Type.Enum([...FIX_AVAILABLE]),
    cveId: Type.String({ description: '`""` when the finding has no CVE, as the API shows it.' }),
    affectedResources: Type.Array(ScannedResource, { maxItems: MAX_RESOURCES }),
    verdict: ToolVerdict,
    evidence: Type.Enum(['scan', 'statement'], {
      description:
        '`scan`: the tool detected it. `statement`: a VEX statement about a finding, which says nothing of severity (the pipeline applies it to the finding of the same key).',
    }),
    at: Type.String({ description: 'Where in the file it was read: a JSON pointer, for the pipeline’s own errors.' }),
  },
  { additionalProperties: false },
);

/** Kinds of warning a file's summary keeps, at most (each counts its occurrences). */
export const MAX_WARNINGS = 20;

/**
 * What a reader took with a gap, or left out with a word (docs/scanner-formats.md, "Warnings"): one
 * entry per kind, counted, with the place of its first occurrence. The import's answer shows them.
 */
export const ScanWarning = Type.Object(
  {
    at: Type.String({ description: 'The JSON pointer of the first place in the file it applies to.' }),
    count: Type.Integer({ minimum: 1, description: 'How many places of the file it applies to.' }),
    message: Type.String({ minLength: 1, description: 'What was taken with a gap, or left out, and why.' }),
  },
  { additionalProperties: false },
);

/** What a whole file says besides its findings: known once the file has been read to its end. */
export const ScanSummary = Type.Object(
  {
    format: Type.String(),
    tool: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_NAME })),
    scope: Type.Optional(
      Type.String({ minLength: 1, maxLength: MAX_NAME, description: 'The image, repository or target the file says it scanned.' }),
    ),
    findings: Type.Integer({ minimum: 0, description: 'Findings yielded.' }),
    skipped: Type.Integer({ minimum: 0, description: 'Results that are not problems (SARIF `pass`, Trivy `PASS`, …).' }),
    warnings: Type.Optional(Type.Array(ScanWarning, { maxItems: MAX_WARNINGS })),
  },
  { additionalProperties: false },
);

export type ScannedResource = Static<typeof ScannedResource>;
export type ToolVerdict = Static<typeof ToolVerdict>;
export type ScannedFinding = Static<typeof ScannedFinding>;
export type ScanSummary = Static<typeof ScanSummary>;
export type ScanWarning = Static<typeof ScanWarning>;
