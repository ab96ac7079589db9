// A checker's report parsed in a worker thread (issue 36: the test-results import's parse off the
// event loop that answers the other organizations): the format's own parser
// (src/formats/checks/formats.ts) run by stream-parse.ts over the chunks the main thread feeds it.
// The main thread's side is check-in-pool.ts.
import { checkFormat } from '../formats/checks/formats.ts';
import type { StreamParseInput } from './stream-messages.ts';
import { parseStream } from './stream-parse.ts';

/** The task: parses the report fed through `port` as `format`, to its end, a refusal, or a cancel. */
export function parseCheckTask({ format, port }: StreamParseInput): Promise<void> {
  return parseStream(port, (file) => {
    const entry = checkFormat(format);
    if (!entry) throw new Error(`no check-results format ${format}`);
    return entry.parse(file);
  });
}

export const checkParseTasks = {
  'checker.parse': parseCheckTask,
};
