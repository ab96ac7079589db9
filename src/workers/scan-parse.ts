// A scanner file parsed in a worker thread (issue 36: an import's parse, the bulk of its CPU, off
// the event loop that answers the other organizations): the format's own parser
// (src/formats/scanners/formats.ts) run by stream-parse.ts over the chunks the main thread feeds
// it. Each batch of findings is labelled with the file's summary as it stood when they were read.
// The main thread's side is scan-in-pool.ts.
import { scannerFormat } from '../formats/scanners/formats.ts';
import type { ScanSummary } from '../domain/vulnerabilities/scanned-finding.ts';
import type { StreamParseInput } from './stream-messages.ts';
import { parseStream } from './stream-parse.ts';

/** The task: parses the file fed through `port` as `format`, to its end, a refusal, or a cancel. */
export function parseScanTask({ format, port }: StreamParseInput): Promise<void> {
  let live: Readonly<ScanSummary> | undefined;
  return parseStream(
    port,
    (file) => {
      const entry = scannerFormat(format);
      if (!entry) throw new Error(`no scanner format ${format}`);
      return entry.parse(file, (summary) => (live = summary));
    },
    {
      take: () => ({ ...(live as ScanSummary) }),
      // a batch never spans a change of the scope or tool the file names
      changed: (batch: ScanSummary) => live?.scope !== batch.scope || live?.tool !== batch.tool,
    },
  );
}

export const scanParseTasks = {
  'scanner.parse': parseScanTask,
};
