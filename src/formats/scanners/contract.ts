// What a scanner format is, as its folder describes it (src/formats/<format>/format.ts): the shared
// contract of the parsers and of the registry that lists them (./formats.ts). The parsers import
// this file, never the registry, so nothing imports in a circle. What the import pipeline needs of
// a format is the domain's (domain/vulnerabilities/scan-format.ts); a description adds what only the
// formats and the doors use: its words for people and how its files are told apart.
import type { ServiceError } from '../../shared/errors.ts';
import type { ScanFormat, SummaryWatch } from '../../domain/vulnerabilities/scan-format.ts';
import type { ScannedFinding, ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import type { ByteChunks, PathPart, ValueKind } from './json-stream.ts';

export type { SummaryWatch };

/**
 * The top of a file as every format checks it (./signatures.ts, built by the registry, which knows
 * every format's signature): the root must be an object, and a top-level member that another
 * format writes stops the reading there, naming that format.
 */
export interface FileTop {
  /** 'walk' at the root; undefined below it, where the format's own plan decides */
  plan(path: readonly PathPart[], kind: ValueKind): 'walk' | undefined;
  /** the error of a member the format requires that the file does not have */
  missing(key: string): ServiceError;
}

/** A format's reader: the file's findings as they are read; returns the file's summary. */
export type FormatReader = (chunks: ByteChunks, top: FileTop, watch?: SummaryWatch) => AsyncGenerator<ScannedFinding, ScanSummary>;

/**
 * One scanner format, described in its folder: all the service knows of it by name. A JSON scan is
 * the default: it names its scope (`scopeless` false), what it no longer reports is closed
 * (`absentCloses` true), shares the scope it names with other formats (`ownScope` false) and its
 * files open with `{` (`opensWith`, refused otherwise as "must be a JSON object": `openingWords`);
 * a format says so only when it differs.
 */
export interface ScannerFormatDescription<Name extends string = string>
  extends Partial<Pick<ScanFormat, 'scopeless' | 'absentCloses' | 'opensWith' | 'openingWords' | 'ownScope'>> {
  readonly name: Name;
  /** as the route's description lists it: "Grype JSON" */
  readonly title: string;
  /** as a refusal names it: "a Grype JSON report" */
  readonly label: string;
  /** top-level members only this format writes: a file that has one is this format's (none for XML) */
  readonly signatures: readonly string[];
  readonly read: FormatReader;
}

/** A description with its name kept as a literal type (the registry derives the names' union from it). */
export const describeFormat = <const Name extends string>(description: ScannerFormatDescription<Name>) => description;
