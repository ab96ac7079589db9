// Check-results formats whose reports are parsed in the worker pool (issue 36: the test-results
// import's parse off the event loop that answers every other organization): the registry's formats
// (src/formats/checks/formats.ts) with a parser that feeds the report to a worker thread
// (check-parse.ts) and yields the results it sends back, returning the summary and throwing the
// refusal the format's own parser would have. The doors hand these to the domain (the import
// route, the job worker: app.ts), as they do scanner formats (scan-in-pool.ts). The stream's
// machinery is stream-in-pool.ts.
import type { CheckFormatLookup, CheckReportSummary, CheckResult } from '../domain/tests/check-result.ts';
import { checkFormat } from '../formats/checks/formats.ts';
import type { WorkerPool } from './pool.ts';
import { formatsInPool, parsedInPool } from './stream-in-pool.ts';

/** The registry's lookup, each format's reports parsed in `pool`. */
export function checkFormatsInPool(pool: WorkerPool): CheckFormatLookup {
  return formatsInPool(
    checkFormat,
    (entry) => (chunks) => parsedInPool<CheckResult, CheckReportSummary>(pool, 'checker.parse', entry.name, chunks),
  );
}
