// How a file shows which format it is: top-level members that only one format writes. A parser
// that meets another format's member at the top level stops there, naming the format the file
// looks like, instead of reading on and reporting missing fields at the end.
import { fileError, type PathPart } from './json-stream.ts';

export const SCANNER_FORMATS = ['sarif', 'trivy', 'grype', 'osv', 'cyclonedx', 'openvex'] as const;
export type ScannerFormat = (typeof SCANNER_FORMATS)[number];

export const FORMAT_LABELS: Record<ScannerFormat, string> = {
  sarif: 'a SARIF 2.1.0 log',
  trivy: 'a Trivy JSON report',
  grype: 'a Grype JSON report',
  osv: 'an OSV-Scanner JSON report',
  cyclonedx: 'a CycloneDX BOM (1.4 or later)',
  openvex: 'an OpenVEX document',
};

const SIGNATURES: Record<ScannerFormat, readonly string[]> = {
  sarif: ['runs', 'inlineExternalProperties'],
  trivy: ['SchemaVersion', 'ArtifactName', 'ArtifactType', 'Results'],
  grype: ['matches', 'ignoredMatches', 'descriptor', 'distro'],
  osv: ['results', 'experimental_config'],
  cyclonedx: ['bomFormat', 'specVersion', 'components', 'vulnerabilities', 'serialNumber', 'dependencies'],
  openvex: ['@context', 'statements'],
};

/** Refuses a top-level member that belongs to another format than `format`. */
export function checkTopLevelKey(format: ScannerFormat, key: PathPart): void {
  if (typeof key !== 'string' || SIGNATURES[format].includes(key)) return;
  const other = SCANNER_FORMATS.find((f) => f !== format && SIGNATURES[f].includes(key));
  if (other)
    throw fileError(
      [key],
      `expected ${FORMAT_LABELS[format]}, but the file has “${key}”, so it looks like ${FORMAT_LABELS[other]}: send it with format ${other}`,
    );
}

/** The top of the file must be an object. */
export function checkRoot(format: ScannerFormat, kind: string): void {
  if (kind !== 'object')
    throw fileError([], `expected ${FORMAT_LABELS[format]} (a JSON object), found ${kind === 'array' ? 'a list' : kind}`);
}

/**
 * Where every format's plan starts: the root must be an object and is walked; a top-level member of
 * another format is refused. Undefined below the top, where the format's own plan decides.
 */
export function planTop(format: ScannerFormat, path: readonly PathPart[], kind: string): 'walk' | undefined {
  if (path.length === 0) {
    checkRoot(format, kind);
    return 'walk';
  }
  if (path.length === 1) checkTopLevelKey(format, path[0] as PathPart);
  return undefined;
}

/** A member the format requires was not in the file. */
export const missing = (format: ScannerFormat, key: string) =>
  fileError([key], `expected ${FORMAT_LABELS[format]}, which has “${key}”; the file has none`);
