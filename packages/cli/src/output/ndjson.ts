// `--output ndjson` and export files: one record per line (newline-delimited JSON), so a
// consumer can stream it and `wc -l` counts records.
export function ndjsonLine(record: unknown): string {
  return `${JSON.stringify(record)}\n`;
}
