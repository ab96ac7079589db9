// `--output table`: aligned columns for people, in the style of the admin command's tables
// (src/cli/table.ts). A list shows the most useful columns of its resource (output/columns.ts)
// plus any optional fields asked for; one record shows every field as `field  value` lines, with
// nested lists one entry a line. Times are shown in one format, `2026-03-31 14:05 UTC`; JSON
// keeps the epoch milliseconds. Widths are display widths (string-width), so names in CJK
// scripts or with emoji line up too.
import stringWidth from 'string-width';

export type ColumnKind =
  /** an ID: copied into the next command, so shortened only when nothing else gives, in the middle */
  | 'id'
  /** a name, title or list: gives way first, ending in "…" */
  | 'text'
  /** short values (status, dates, counts): kept whole */
  | 'fixed';

export interface ColumnFit {
  kind?: ColumnKind;
  /** may be left out when the terminal is too narrow; lower ranks go first. Unset: always shown. */
  drop?: number;
}

export interface TableOptions {
  /** the terminal's width in columns: the table is fitted to it as `gh` fits its tables */
  width?: number;
  /** per column, how it gives way (default: kept whole, never dropped) */
  columns?: ColumnFit[];
}

/** A name is shortened to this before any column is dropped, so it stays readable. */
const READABLE = 24;
/** ...and never below this, nor an ID below ID_MIN (beyond that the terminal wraps). */
const TEXT_MIN = 12;
const ID_MIN = 13;
const GAP = 2;

/**
 * The columns shown and their widths in `width` display columns, the way `gh` fits a table: names
 * give way first (down to READABLE), then the columns of lowest rank are left out, then names
 * give way further (TEXT_MIN), then IDs are shortened in the middle (ID_MIN). Freed room goes back
 * to the names. Widths are display widths (string-width): a CJK character or an emoji takes two.
 */
export function fitColumns(
  headers: string[],
  rows: string[][],
  width: number | undefined,
  fits: ColumnFit[] = [],
): { shown: number[]; widths: number[] } {
  const natural = headers.map((h, i) => Math.max(stringWidth(h), ...rows.map((r) => stringWidth(r[i] ?? ''))));
  let shown = headers.map((_, i) => i);
  const kind = (i: number) => fits[i]?.kind ?? 'fixed';
  const floor = (i: number, min: number) => Math.min(natural[i], Math.max(min, stringWidth(headers[i])));
  const layout = (textMin: number, idMin: number) => {
    const widths = [...natural];
    const total = () => shown.reduce((sum, i) => sum + widths[i], 0) + GAP * (shown.length - 1);
    // The widest name gives a column at a time, so names end up as even as the room allows.
    const give = (which: ColumnKind, min: number) => {
      let over = total() - width!;
      while (over > 0) {
        let widest = -1;
        for (const i of shown) if (kind(i) === which && widths[i] > floor(i, min) && (widest < 0 || widths[i] > widths[widest])) widest = i;
        if (widest < 0) return;
        widths[widest]--;
        over--;
      }
    };
    give('text', textMin);
    give('id', idMin);
    return { widths, over: total() - width! };
  };
  if (width === undefined) return { shown, widths: natural };
  for (;;) {
    const readable = layout(READABLE, Number.POSITIVE_INFINITY);
    if (readable.over <= 0) return { shown, widths: readable.widths };
    const droppable = shown.filter((i) => fits[i]?.drop !== undefined);
    if (droppable.length === 0) break;
    const lowest = droppable.reduce((a, b) => (fits[b].drop! < fits[a].drop! ? b : a));
    shown = shown.filter((i) => i !== lowest);
  }
  return { shown, widths: layout(TEXT_MIN, ID_MIN).widths };
}

/** Aligned columns fitted to `options.width` (fitColumns); the last column is not padded. */
export function renderTable(headers: string[], rows: string[][], options: TableOptions = {}): string {
  const { shown, widths } = fitColumns(headers, rows, options.width, options.columns);
  const line = (cells: string[]) =>
    shown
      .map((i) => {
        const cell = cells[i] ?? '';
        const text = options.columns?.[i]?.kind === 'id' ? shortenMiddle(cell, widths[i]) : truncate(cell, widths[i]);
        return padEnd(text, widths[i]);
      })
      .join(' '.repeat(GAP))
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

/** Pads `text` with spaces to `width` display columns. */
export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - stringWidth(text)));
}

/** `text` cut to at most `max` display columns, ending in "…" when cut. */
export function truncate(text: string, max: number): string {
  return stringWidth(text) <= max ? text : `${prefixWithin(text, max - 1)}…`;
}

/** The longest start of `text` at most `max` display columns wide, whole characters only. */
function prefixWithin(text: string, max: number): string {
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = stringWidth(segment);
    if (used + w > max) break;
    out += segment;
    used += w;
  }
  return out;
}

/** `text` cut to at most `max` display columns by taking out its middle: `vul_01HZX…7KQ2`, so both ends still tell IDs apart. */
export function shortenMiddle(text: string, max: number): string {
  if (stringWidth(text) <= max) return text;
  const parts = [...graphemes.segment(text)].map((g) => g.segment);
  const keep = max - 1;
  let head = Math.ceil(keep / 2);
  let tail = keep - head;
  // IDs are ASCII; a wide character is simply counted by its width
  while (stringWidth(parts.slice(0, head).join('')) + stringWidth(parts.slice(parts.length - tail).join('')) > keep) {
    if (head >= tail) head--;
    else tail--;
  }
  return `${parts.slice(0, head).join('')}…${tail > 0 ? parts.slice(parts.length - tail).join('') : ''}`;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const WRAP = 100;

/** One record as `field  value` lines; long text wraps (within the terminal's width, in display columns), lists of objects take a line per entry. */
export function renderRecord(record: Record<string, unknown>, terminalWidth?: number): string {
  const keys = Object.keys(record);
  const width = Math.max(...keys.map((k) => k.length));
  const wrapAt = Math.max(20, Math.min(WRAP, (terminalWidth ?? Number.POSITIVE_INFINITY) - width - 2));
  const lines: string[] = [];
  for (const key of keys) {
    const value = record[key];
    const entries =
      Array.isArray(value) && value.some((v) => typeof v === 'object' && v !== null)
        ? value.map((v) => formatValue(key, v))
        : [formatValue(key, value)];
    const wrapped = entries.flatMap((entry) => wrap(entry, wrapAt));
    for (const [i, text] of wrapped.entries()) lines.push(`${(i === 0 ? key : '').padEnd(width)}  ${text}`.trimEnd());
    if (wrapped.length === 0) lines.push(`${key.padEnd(width)}  -`);
  }
  return `${lines.join('\n')}\n`;
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let rest = paragraph;
    while (stringWidth(rest) > width) {
      const head = prefixWithin(rest, width);
      const cut = head.lastIndexOf(' ');
      const at = cut > head.length / 2 ? cut : Math.max(1, head.length);
      out.push(rest.slice(0, at));
      rest = rest.slice(at).trimStart();
    }
    out.push(rest);
  }
  return out;
}

/** Names of fields that hold epoch milliseconds. */
const TIME_FIELD = /(?:On|Date|Seen|At|From|To|Start|End)$/;

/** The one format of times in tables and records: `2026-03-31 14:05 UTC` (sortable, time zone stated). */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A value as text for a table cell. */
export function formatValue(key: string, value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return TIME_FIELD.test(key) && value > 1e11 ? formatTime(value) : String(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map((v) => formatValue(key, v)).join(', ');
  if (typeof value === 'object') return label(value as Record<string, unknown>);
  return String(value);
}

const NAME_KEYS = [
  'name',
  'displayName',
  'testName',
  'controlName',
  'requirementName',
  'riskName',
  'versionName',
  'entityName',
  'frameworkName',
  'title',
  'ticketId',
  'id',
];
const STATUS_KEYS = ['status', 'controlStatus', 'artifactStatus'];

/** A nested object in a few words: its name, code and status, or its fields in brief. */
function label(obj: Record<string, unknown>): string {
  if ('customFieldId' in obj) return `${String(obj.title)}: ${formatValue('fieldValue', obj.fieldValue)}`;
  const code = ['controlCode', 'requirementCode'].map((k) => obj[k]).find((v) => typeof v === 'string' && v !== '');
  const name = NAME_KEYS.map((k) => obj[k]).find((v) => typeof v === 'string' && v !== '');
  const status = STATUS_KEYS.map((k) => obj[k]).find((v) => typeof v === 'string');
  if (name !== undefined || code !== undefined) {
    const email = typeof obj.email === 'string' && obj.email !== '' ? ` <${obj.email}>` : '';
    const text = [code, name].filter((v) => v !== undefined).join(' ');
    return `${text}${email}${status !== undefined ? ` (${status})` : ''}`;
  }
  return Object.entries(obj)
    .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : formatValue(k, v)}`)
    .join(' ');
}
