// Scanner formats whose files are parsed in the worker pool (issue 36: the parse of an import, the
// bulk of its CPU, off the event loop that answers every other organization): the registry's
// formats (src/formats/scanners/formats.ts) with a parser that feeds the file to a worker thread
// (scan-parse.ts) and yields the findings it sends back, as the format's own parser would have
// yielded them, the watched summary following each batch's. The doors hand these to the domain
// (the import route, the job worker: app.ts), so the import pipeline is the same whichever thread
// parses. The stream's machinery is stream-in-pool.ts.
import type { ScanFormat, ScanParser, SummaryWatch } from '../domain/vulnerabilities/scan-format.ts';
import type { ScannedFinding, ScanSummary } from '../domain/vulnerabilities/scanned-finding.ts';
import { scannerFormat } from '../formats/scanners/formats.ts';
import type { WorkerPool } from './pool.ts';
import { formatsInPool, parsedInPool } from './stream-in-pool.ts';

/** The registry's lookup, each format's files parsed in `pool`. */
export function scannerFormatsInPool(pool: WorkerPool): (name: string) => ScanFormat | undefined {
  return formatsInPool<ScanFormat>(scannerFormat, (entry) => parserInPool(pool, entry.name));
}

/** A ScanParser that runs `format`'s parser in a thread of `pool`. */
function parserInPool(pool: WorkerPool, format: string): ScanParser {
  return async function* parseInPool(chunks, watch?: SummaryWatch) {
    const live: ScanSummary = { format, findings: 0, skipped: 0 };
    watch?.(live);
    // each batch's summary, as it stood when its findings were read, is the watched one while they are taken
    const follow = (summary: ScanSummary) => {
      for (const key of Object.keys(live)) delete (live as Record<string, unknown>)[key];
      Object.assign(live, summary);
    };
    return yield* parsedInPool<ScannedFinding, ScanSummary, ScanSummary>(pool, 'scanner.parse', format, chunks, follow);
  };
}
