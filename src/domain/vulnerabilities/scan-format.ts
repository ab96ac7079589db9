// What the import pipeline needs of a scanner format: its name, how its files are read, and the two
// rules that differ between formats. Each format describes itself in its folder
// (src/formats/<format>/format.ts) and the registry lists them (src/formats/scanners/formats.ts);
// the doors look a format up by name and hand it in (the HTTP route; the job worker through the
// lookup app.ts gives it), so the domain never imports a format.
import type { ScannedFinding, ScanSummary } from './scanned-finding.ts';

/** A file's bytes as they arrive (text chunks are UTF-8). */
export type ScanBytes = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/**
 * Called once, before anything is read, with the summary the parser fills in as it reads: the
 * import pipeline learns the file's scope as soon as it has been read (some tools write it before
 * their findings, some after).
 */
export type SummaryWatch = (summary: Readonly<ScanSummary>) => void;

/**
 * Reads a file: yields its findings as they are read; the generator's return value is the file's
 * summary (its tool and default scope). Throws `validation_failed` naming the place (a JSON
 * pointer) at the first problem; nothing is yielded after it.
 */
export type ScanParser = (chunks: ScanBytes, watch?: SummaryWatch) => AsyncGenerator<ScannedFinding, ScanSummary>;

export interface ScanFormat {
  /** what `format` names it (the query, the job's input, the result) */
  readonly name: string;
  /** its files never name a scope: their findings need not wait for one */
  readonly scopeless: boolean;
  /**
   * A finding of the scope and source that the file no longer reports is closed: true of a scan;
   * false of a document of statements (a VEX document says what is true of findings, its silence
   * closes nothing).
   */
  readonly absentCloses: boolean;
  /**
   * The characters its files may start with, after white space and a UTF-8 byte order mark: `{` for a
   * JSON format, `{[` for one whose older files are a list (Trivy before 0.20), `<` for an XML one. A
   * body that starts otherwise is refused before the rest of it is stored (../imports/spool.ts), with
   * `openingWords` as the refusal's message for the file's start (`/`): "must be a JSON object".
   */
  readonly opensWith: string;
  readonly openingWords: string;
  /**
   * The scope it takes from a file is its own, `<the file's scope> (<format>)`: true of a format
   * whose keys are rules at places (SARIF), which never agree with the package formats' keys, so
   * that two files of one tool on one target in two such formats do not close each other's findings
   * (docs/scanner-imports.md, "The scope"). A scope the request names is used as it is.
   */
  readonly ownScope: boolean;
  readonly parse: ScanParser;
}

/** The format a name names, if any (the job worker's lookup: a job's input keeps the name). */
export type ScanFormatLookup = (name: string) => ScanFormat | undefined;
