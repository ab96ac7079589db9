// `--output table`: aligned columns for people, in the style of the admin command's tables
// (src/cli/table.ts). A list shows the most useful columns of its resource (output/columns.ts)
// plus any optional fields asked for; one record shows every field as `field  value` lines, with
// nested lists one entry a line. Times are shown as UTC dates; JSON keeps the epoch milliseconds.

/** Plain aligned columns; the last column is not padded. */
export function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (c ?? '').padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

const WRAP = 100;

/** One record as `field  value` lines; long text wraps, lists of objects take a line per entry. */
export function renderRecord(record: Record<string, unknown>): string {
  const keys = Object.keys(record);
  const width = Math.max(...keys.map((k) => k.length));
  const lines: string[] = [];
  for (const key of keys) {
    const value = record[key];
    const entries =
      Array.isArray(value) && value.some((v) => typeof v === 'object' && v !== null)
        ? value.map((v) => formatValue(key, v))
        : [formatValue(key, value)];
    const wrapped = entries.flatMap((entry) => wrap(entry, WRAP));
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

export function formatTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : `${iso.slice(0, 16).replace('T', ' ')}Z`;
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
