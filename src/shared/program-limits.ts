// The bounds every program document is read within, whatever its door (cds, HTTP, console): the
// settings (PROGRAM_MAX_BYTES, PROGRAM_MAX_RECORDS, src/config.ts) and the fixed guards against
// hostile text (deep nesting, huge numbers, YAML alias bombs). docs/program-documents.md, "Limits".

/** Default largest document, in bytes (all files of a folder together): PROGRAM_MAX_BYTES. */
export const DEFAULT_PROGRAM_MAX_BYTES = 64 * 1024 * 1024;
/** Default most records (items of the document's top-level lists, all files together): PROGRAM_MAX_RECORDS. */
export const DEFAULT_PROGRAM_MAX_RECORDS = 100_000;
/**
 * Default largest YAML text (one file, one body): PROGRAM_MAX_YAML_BYTES. Parsing YAML costs about
 * a second per MiB of CPU (the `yaml` package, measured on this project's CI machine under load)
 * and many times the text in memory, against a few milliseconds per MiB for JSON: larger programs
 * travel as JSON.
 */
export const DEFAULT_PROGRAM_MAX_YAML_BYTES = 8 * 1024 * 1024;
/** Deepest nesting of lists and objects (a program document needs about 6). */
export const PROGRAM_MAX_DEPTH = 32;
/** Longest number, in characters; a program's numbers are versions and days. */
export const PROGRAM_NUMBER_MAX_LENGTH = 32;
/** YAML aliases (`*name`) are expanded at most this many times per anchor (the `yaml` package's check). */
export const PROGRAM_MAX_ALIAS_COUNT = 100;
/** Most files of a folder read as one document. */
export const PROGRAM_MAX_FILES = 1000;
/** Most problems reported at once. */
export const PROGRAM_MAX_ISSUES = 50;

export interface ProgramLimits {
  maxBytes: number;
  maxRecords: number;
  /** largest YAML text; default DEFAULT_PROGRAM_MAX_YAML_BYTES */
  maxYamlBytes?: number;
}

export const DEFAULT_PROGRAM_LIMITS: ProgramLimits = {
  maxBytes: DEFAULT_PROGRAM_MAX_BYTES,
  maxRecords: DEFAULT_PROGRAM_MAX_RECORDS,
  maxYamlBytes: DEFAULT_PROGRAM_MAX_YAML_BYTES,
};

/** `1000 bytes`, `5.2 KiB`, `32 MiB` */
export function byteSize(bytes: number): string {
  const [unit, scale] = bytes >= 1024 * 1024 ? ['MiB', 1024 * 1024] : bytes >= 1024 ? ['KiB', 1024] : ['bytes', 1];
  return `${Math.round((bytes / scale) * 10) / 10} ${unit}`;
}

/** A JSON pointer (RFC 6901) from its segments. */
export const pointerOf = (segments: ReadonlyArray<string | number>) =>
  segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** A JSON pointer's segments; '' is the whole document. */
export const segmentsOf = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .replace(/^\//, '')
        .split('/')
        .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
