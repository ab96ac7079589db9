import type { CliIo } from './io.ts';

/** Plain aligned columns for terminal output. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (c ?? '').padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** A timestamp cell: ISO 8601, or "-" for never. */
export const dateCell = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

/** Prints the rows of a list: as JSON with --json, else a table of `headers` with one line of `cells` per row. */
export function printList<R>(io: CliIo, json: unknown, rows: readonly R[], headers: string[], cells: (row: R) => string[]): void {
  io.out(json ? JSON.stringify(rows) : table(headers, rows.map(cells)));
}
