// The scanner formats the service reads, by name: the one entry point for the import pipeline.
import type { FieldIssue } from '../../shared/errors.ts';
import type { ScannedFinding, ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { parseCycloneDx } from '../cyclonedx/parse.ts';
import { parseGrype } from '../grype/parse.ts';
import { parseOpenVex } from '../openvex/parse.ts';
import { parseOsv } from '../osv/parse.ts';
import { parseSarif } from '../sarif/parse.ts';
import { parseTrivy } from '../trivy/parse.ts';
import type { ByteChunks } from './json-stream.ts';
import { SCANNER_FORMATS, type ScannerFormat } from './signatures.ts';

export { SCANNER_FORMATS, type ScannerFormat };

/**
 * Called once, before anything is read, with the summary the parser fills in as it reads: the
 * import pipeline learns the file's scope as soon as it has been read (some tools write it before
 * their findings, some after).
 */
export type SummaryWatch = (summary: Readonly<ScanSummary>) => void;

export type ScanParser = (chunks: ByteChunks, watch?: SummaryWatch) => AsyncGenerator<ScannedFinding, ScanSummary>;

const PARSERS: Record<ScannerFormat, ScanParser> = {
  sarif: parseSarif,
  trivy: parseTrivy,
  grype: parseGrype,
  osv: parseOsv,
  cyclonedx: parseCycloneDx,
  openvex: parseOpenVex,
};

export const isScannerFormat = (name: string): name is ScannerFormat => (SCANNER_FORMATS as readonly string[]).includes(name);

/** The detail of an unknown format name: names `format` and lists the known ones. */
export const unknownFormatIssue = (name: string): FieldIssue => ({
  field: 'format',
  message: `must be one of ${SCANNER_FORMATS.join(', ')} (found “${name.slice(0, 40)}”)`,
});

/**
 * Reads a scanner file as `format`: yields its findings as they are read; the generator's return
 * value is the file's summary (its tool and default scope). Throws `validation_failed` naming the
 * place (a JSON pointer) at the first problem; nothing is yielded after it.
 */
export function parseScan(format: ScannerFormat, chunks: ByteChunks, watch?: SummaryWatch): AsyncGenerator<ScannedFinding, ScanSummary> {
  return PARSERS[format](chunks, watch);
}
