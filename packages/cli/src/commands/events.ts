// compliance events list | tail
// The change events feed (GET /v1/events, an extension of the service): `list` reads it from the
// oldest event kept (or --since a cursor) to the latest; `tail` then keeps polling and prints
// events as they are committed, until Ctrl-C. Both end by printing, on stderr, the cursor to
// continue from: the feed's cursors are bound to the filters, so the hint repeats them.
import { UsageError, listFilter, type OptionSpec, type ParsedValues } from '../args.ts';
import type { Context } from '../context.ts';
import { COLUMNS } from '../output/columns.ts';
import type { Format } from '../output/format.ts';
import { truncate } from '../output/table.ts';
import { listWriter, type ListWriter } from '../output/writer.ts';
import { RatePacer } from '../rate-pacer.ts';
import { PaginationError, type EventListQuery } from '../sdk.ts';
import { EVENT_PAGE_SIZE, EVENT_TYPE } from '../vocabulary.ts';
import type { Command } from './command.ts';

const filterOptions: OptionSpec[] = [
  {
    ...listFilter('type', 'only these event types (default: every type the credential may read)', EVENT_TYPE),
    param: 'types',
  },
  {
    name: 'resource',
    kind: 'string',
    param: 'resourceId',
    valueName: 'ID',
    help: 'only events about this resource (its ID as the API shows it)',
  },
];

const sinceOption = (what: string): OptionSpec => ({
  name: 'since',
  kind: 'string',
  valueName: 'CURSOR',
  help: `${what} after this cursor (printed by an earlier list or tail with the same --type and --resource)`,
});

const pageSizeOption: OptionSpec = {
  name: 'page-size',
  kind: 'integer',
  valueName: 'N',
  help: `events per request, 1-${EVENT_PAGE_SIZE.max} (default ${EVENT_PAGE_SIZE.max}: the fewest requests)`,
};

function pageSize(values: ParsedValues): number {
  const size = (values['page-size'] as number | undefined) ?? EVENT_PAGE_SIZE.max;
  if (size < 1 || size > EVENT_PAGE_SIZE.max) throw new UsageError(`--page-size takes 1 to ${EVENT_PAGE_SIZE.max}; not ${size}`);
  return size;
}

function filters(values: ParsedValues): Pick<EventListQuery, 'types' | 'resourceId'> {
  const types = values.type as EventListQuery['types'] | undefined;
  const resourceId = values.resource as string | undefined;
  if (resourceId !== undefined && resourceId.trim() === '') throw new UsageError('--resource must not be empty');
  return { types: types && types.length > 0 ? types : undefined, resourceId };
}

const shellWord = (word: string) => (/^[A-Za-z0-9._%:/=,@+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** `compliance events <action> --since CURSOR` with the filters the cursor is bound to. */
function resumeCommand(action: string, cursor: string, values: ParsedValues): string {
  const { types, resourceId } = filters(values);
  const words = ['compliance', 'events', action, '--since', cursor];
  if (types) words.push('--type', types.join(','));
  if (resourceId !== undefined) words.push('--resource', resourceId);
  return words.map(shellWord).join(' ');
}

const list: Command = {
  group: 'events',
  action: 'list',
  summary: 'change events in commit order, up to the latest (or --limit N)',
  examples: [
    'events list --type vulnerability.created,vulnerability.updated --limit 20',
    "events list --resource 'api%23VUL-9050' -o ndjson",
    'events list --since CURSOR -o ndjson >> events.ndjson',
  ],
  options: [
    ...filterOptions,
    sinceOption('start'),
    { name: 'limit', kind: 'integer', help: 'stop after this many events (default: every event up to the latest)' },
    pageSizeOption,
  ],
  notes: [
    "Events are kept for 30 days by default (the service's EVENT_RETENTION_DAYS). The feed is an extension of the",
    'service. On stderr, the last line is the cursor to continue from: pass it to --since (with the same',
    '--type and --resource) to get only the events committed after these.',
  ].join('\n'),
  async run(ctx, values) {
    const limit = values.limit as number | undefined;
    if (limit !== undefined && limit < 1) throw new UsageError('--limit must be 1 or more');
    const size = pageSize(values);
    const query = filters(values);
    const client = ctx.client();
    const writer = listWriter(ctx.io, ctx.format, 'events');
    const pacer = new RatePacer();
    const onWait = (ms: number) => ctx.notice(`waiting ${Math.ceil(ms / 1000)} s for the rate-limit window`);
    let cursor = values.since as string | undefined;
    let written = 0;
    for (;;) {
      // The last page asks for exactly what --limit leaves, so the cursor ends right after the last event printed.
      const count = limit === undefined ? size : Math.min(size, limit - written);
      const page = await client.events.listPage({ ...query, count, nextCursor: cursor }, { signal: ctx.signal });
      pacer.observe(page.response.headers);
      for (const event of page.data) await writer.write(event);
      written += page.data.length;
      const next = page.meta.nextCursor;
      if (page.meta.hasMore && next === cursor) throw new PaginationError('the service said there is more but sent the same cursor again');
      cursor = next;
      if (!page.meta.hasMore || (limit !== undefined && written >= limit)) break;
      await pacer.wait(ctx.signal, onWait);
    }
    await writer.end();
    ctx.io.err(`cursor: ${cursor}\n  continue after these events with: ${resumeCommand('list', cursor!, values)}`);
  },
};

const tail: Command = {
  group: 'events',
  action: 'tail',
  summary: 'follow the change events: print each as it is committed, until Ctrl-C',
  examples: [
    'events tail --from-now',
    'events tail --type control.status_changed,framework.progress_changed -o ndjson',
    'events tail --since CURSOR -o ndjson >> events.ndjson',
  ],
  options: [
    ...filterOptions,
    sinceOption('start'),
    { name: 'from-now', kind: 'switch', help: 'only events committed from now on (default: from the oldest event kept)' },
    { name: 'interval', kind: 'integer', valueName: 'SECONDS', help: 'the wait between polls once up to date (default 5)' },
    pageSizeOption,
  ],
  notes: [
    'Output: one line per event at a terminal (table), else one JSON object per line (ndjson) as each',
    'arrives; -o json writes one JSON array, closed when tail stops. Ctrl-C stops it with exit status 0 and',
    'prints on stderr the command that resumes after the last event printed. Polling stays within the',
    "credential's rate limit (a 429 is waited out).",
  ].join('\n'),
  async run(ctx, values) {
    const since = values.since as string | undefined;
    const fromNow = values['from-now'] === true;
    if (since !== undefined && fromNow) throw new UsageError('give either --since or --from-now, not both');
    const intervalSec = (values.interval as number | undefined) ?? 5;
    if (intervalSec < 1) throw new UsageError('--interval must be 1 second or more');
    // Piped, the default is a line per event (a JSON array would not end until Ctrl-C).
    const format: Format = ctx.globals.output === undefined && !ctx.io.stdoutIsTty ? 'ndjson' : ctx.format;
    const writer = streamWriter(ctx, format);
    const follower = ctx.client().events.follow({
      ...filters(values),
      after: since,
      fromNow,
      count: pageSize(values),
      intervalMs: intervalSec * 1000,
      signal: ctx.signal,
    });
    ctx.notice(`following events${fromNow ? ' from now' : ''}; Ctrl-C stops`);
    try {
      for await (const event of follower) await writer.write(event);
      // The loop ends only when Ctrl-C aborts the signal: a normal stop.
      await writer.end();
    } finally {
      const cursor = follower.cursor;
      ctx.io.err(
        cursor === undefined
          ? 'stopped before the first page was read: nothing to resume from'
          : `stopped; cursor: ${cursor}\n  resume after the last event printed with: ${resumeCommand('tail', cursor, values)}`,
      );
    }
  },
};

/** Writes each event as it arrives: a line per event (table, ndjson), or one JSON array closed at the end. */
function streamWriter(ctx: Context, format: Format): ListWriter {
  if (format !== 'table') return listWriter(ctx.io, format, 'events');
  // Fixed widths, known before any event: the time format, the longest type, a UUID, an event ID;
  // on a terminal too narrow for them and 20 columns of change, the event ID is left out.
  const terminal = ctx.io.stdoutColumns ?? 200;
  const all = [20, 26, 36, 30];
  const keep = all.reduce((sum, w) => sum + w + 2, 0) + 20 <= terminal ? [0, 1, 2, 3, 4] : [0, 1, 2, 4];
  const widths = keep.slice(0, -1).map((i) => all[i]);
  const columns = keep.map((i) => COLUMNS.events[i]);
  const line = (cells: string[]) => {
    const fixed = cells.slice(0, widths.length).map((c, i) => c.padEnd(widths[i]));
    const room = terminal - fixed.join('  ').length - 2;
    return `${[...fixed, truncate(cells[widths.length] ?? '', Math.max(10, room))].join('  ').trimEnd()}\n`;
  };
  let headed = false;
  const head = async () => {
    if (headed) return;
    headed = true;
    await ctx.io.out(line(columns.map((c) => c.header)));
  };
  return {
    write: async (event) => {
      await head();
      await ctx.io.out(line(columns.map((c) => c.cell(event as Record<string, unknown>))));
    },
    end: head,
  };
}

export const eventCommands: Command[] = [list, tail];
