// The profile file's format: INI, as in ~/.aws/credentials. `[name]` opens a profile; `key = value`
// lines set its settings; `#` and `;` start comments. Updating one profile rewrites only its
// section, so other profiles and comments outside it are kept as they were.

export type IniSections = Map<string, Map<string, string>>;

const SECTION = /^\s*\[([^\]]*)\]\s*$/;

export function parseIni(text: string): IniSections {
  const sections: IniSections = new Map();
  let current: Map<string, string> | undefined;
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    const header = SECTION.exec(line);
    if (header) {
      const name = header[1].trim();
      current = sections.get(name) ?? new Map();
      sections.set(name, current);
      continue;
    }
    const eq = trimmed.indexOf('=');
    if (eq <= 0 || !current) throw new SyntaxError(`line ${index + 1}: expected "[profile]" or "key = value"`);
    current.set(trimmed.slice(0, eq).trim(), unquote(trimmed.slice(eq + 1).trim()));
  }
  return sections;
}

function unquote(value: string): string {
  const q = value[0];
  return (q === '"' || q === "'") && value.length >= 2 && value.endsWith(q) ? value.slice(1, -1) : value;
}

/** `text` with section `name` replaced by `entries` (appended when it did not exist). */
export function replaceSection(text: string, name: string, entries: Array<[string, string]>): string {
  const lines = text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
  const block = [`[${name}]`, ...entries.map(([key, value]) => `${key} = ${value}`)];
  const start = lines.findIndex((line) => SECTION.exec(line)?.[1].trim() === name);
  if (start < 0) {
    if (lines.length > 0 && lines[lines.length - 1].trim() !== '') lines.push('');
    return `${[...lines, ...block].join('\n')}\n`;
  }
  let end = start + 1;
  while (end < lines.length && !SECTION.test(lines[end])) end++;
  // Keep the blank lines and comments that sit before the next section with that section.
  while (end > start + 1 && /^\s*(?:[#;].*)?$/.test(lines[end - 1]) && end < lines.length) end--;
  return `${[...lines.slice(0, start), ...block, ...lines.slice(end)].join('\n')}\n`;
}
