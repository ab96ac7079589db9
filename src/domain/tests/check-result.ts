// What a checker's report says, as the test-results import reads it (issue 38; docs/check-results.md):
// one result per check and resource, pass or fail, with what the tool says of the resource. The
// formats (src/formats/<tool>/, listed by src/formats/checks/formats.ts) turn a tool's file into
// these; the import (./import-results-run.ts) turns the results of the checks a test names into
// that test's run. Like ./scan-format.ts for scanner files, the domain declares what it needs of a
// format, and the doors hand the format in, so the domain never imports one.
import type { ScanBytes } from '../vulnerabilities/scan-format.ts';

/** A check's verdict on one resource: `pass`, `fail`, or `muted` (a failure the tool was told to accept). */
export type CheckVerdict = 'pass' | 'fail' | 'muted';

export interface CheckResult {
  /** `<tool>:<the tool's ID of the check>`, as a test's `checks` name it */
  check: string;
  verdict: CheckVerdict;
  /** the resource as the tool identifies it (an ARN, `Namespace/Kind/name`, a file path…) */
  resourceId: string;
  name: string;
  region?: string;
  service?: string;
  accountID?: string;
  /** what the tool said of this resource under this check */
  message?: string;
  /** when the tool checked it, epoch milliseconds */
  time?: number;
  /**
   * The resource is named only within what was checked (kube-bench's node type: `master` on every
   * node): the import names it `<scope>/<resourceId>` when the report has a scope, so that the
   * nodes of one cluster, imported each with its own scope, stay apart.
   */
  withinScope?: boolean;
}

/** What the file says of itself, filled in as it is read. */
export interface CheckReportSummary {
  format: string;
  /** the scope the file names (a cloud account, a cluster, a repository), if any */
  scope?: string;
  /** the results read */
  results: number;
}

/** Reads a file: yields its results as they are read, returns its summary; throws `validation_failed` naming the place. */
export type CheckParser = (chunks: ScanBytes) => AsyncGenerator<CheckResult, CheckReportSummary>;

export interface CheckFormat {
  /** what `format` names it */
  readonly name: string;
  /**
   * the characters its files may start with, and the words of the refusal of a body that starts
   * otherwise (domain/imports/spool.ts)
   */
  readonly opensWith: string;
  readonly openingWords: string;
  readonly parse: CheckParser;
}

/** The format a name names, if any (the job worker's lookup). */
export type CheckFormatLookup = (name: string) => CheckFormat | undefined;
