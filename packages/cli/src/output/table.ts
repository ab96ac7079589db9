// `--output table`: aligned columns for people, in the style of the admin command's tables
// (src/cli/table.ts). A list shows the most useful columns of its resource (output/columns.ts)
// plus any optional fields asked for; one record shows every field as `field  value` lines, with
// nested lists one entry a line. Times are shown in one format, `2026-03-31 14:05 UTC`; JSON
// keeps the epoch milliseconds.

export interface TableOptions {
  /** the terminal's width: shrinkable columns give way (ending in "…") until a row fits */
  width?: number;
  /** per column, whether it may be shortened (names, titles); IDs never are, they are copied into the next command */
  shrinkable?: boolean[];
}

/** A column is never shortened below this (or its header). */
const MIN_WIDTH = 8;

/** Plain aligned columns; the last column is not padded. */
export function renderTable(headers: string[], rows: string[][], options: TableOptions = {}): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const { width, shrinkable } = options;
  if (width !== undefined && shrinkable) {
    const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
    let over = total() - width;
    while (over > 0) {
      let widest = -1;
      for (const [i, w] of widths.entries()) {
        if (shrinkable[i] && w > Math.max(MIN_WIDTH, headers[i].length) && (widest < 0 || w > widths[widest])) widest = i;
      }
      if (widest < 0) break; // only IDs and short columns left: the terminal wraps, nothing is lost
      widths[widest]--;
      over--;
    }
  }
  const line = (cells: string[]) =>
    cells
      .map((c, i) => truncate(c ?? '', widths[i]).padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

const WRAP = 100;

/** One record as `field  value` lines; long text wraps (within the terminal's width), lists of objects take a line per entry. */
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
    while (rest.length > width) {
      const cut = rest.lastIndexOf(' ', width);
      const at = cut > width / 2 ? cut : width;
      out.push(rest.slice(0, at));
      rest = rest.slice(at).trimStart();
    }
    out.push(rest);
  }
  return out;
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
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
