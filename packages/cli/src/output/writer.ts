// Writes a command's result in the chosen format: one record, or a list record by record. JSON
// and NDJSON lists go out as they arrive; a table needs every row for its column widths, so it
// collects them (a paged list stops at --limit when one is given).
import type { Io } from '../io.ts';
import type { Format } from './format.ts';
import { jsonArrayWriter, jsonDocument } from './json.ts';
import { ndjsonLine } from './ndjson.ts';
import { columnsFor, type Listing } from './columns.ts';
import { renderRecord, renderTable } from './table.ts';

export interface ListWriter {
  write(record: unknown): Promise<void>;
  end(): Promise<void>;
}

export function listWriter(io: Io, format: Format, resource: Listing, extraFields?: string[]): ListWriter {
  if (format === 'ndjson') {
    return { write: (r) => io.out(ndjsonLine(r)), end: async () => {} };
  }
  if (format === 'json') {
    const json = jsonArrayWriter();
    return { write: (r) => io.out(json.item(r)), end: () => io.out(json.end()) };
  }
  const rows: Array<Record<string, unknown>> = [];
  return {
    write: async (r) => {
      rows.push(r as Record<string, unknown>);
    },
    end: async () => {
      const columns = columnsFor(resource, extraFields);
      await io.out(
        renderTable(
          columns.map((c) => c.header),
          rows.map((r) => columns.map((c) => c.cell(r))),
          { width: io.stdoutColumns, columns },
        ),
      );
      if (io.stderrIsTty) io.err(`${rows.length} ${rows.length === 1 ? 'record' : 'records'}`);
    },
  };
}

export async function writeList(io: Io, format: Format, resource: Listing, records: unknown[], extraFields?: string[]): Promise<void> {
  const writer = listWriter(io, format, resource, extraFields);
  for (const record of records) await writer.write(record);
  await writer.end();
}

export async function writeRecord(io: Io, format: Format, record: unknown): Promise<void> {
  if (format === 'json') await io.out(jsonDocument(record));
  else if (format === 'ndjson') await io.out(ndjsonLine(record));
  else await io.out(renderRecord(record as Record<string, unknown>, io.stdoutColumns));
}
