// docs/configuration.md against src/config.ts: every environment variable the configuration reads
// is in the page's table, and every default the table states as a plain value is the one the code
// uses (setting the variable to its documented default changes nothing in the loaded Config).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const page = fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
const source = fs.readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');

/** The table's rows: the variables of the first cell and the defaults of the second, in order. */
function rows(): { names: string[]; defaults: string[] }[] {
  return page
    .split('\n')
    .filter((line) => /^\| `[A-Z]/.test(line))
    .map((line) => {
      const [names, defaults] = line.split('|').slice(1, 3);
      return {
        names: [...names.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]),
        defaults: defaults.split(' / ').map((d) => d.trim()),
      };
    });
}

describe('docs/configuration.md', () => {
  it('lists every variable src/config.ts reads', () => {
    const read = new Set([...source.matchAll(/env(?:\.|, ')([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]));
    assert.ok(read.size > 40, `found the variables config.ts reads (${read.size})`);
    const documented = new Set(rows().flatMap((r) => r.names));
    assert.deepEqual(
      [...read].filter((name) => !documented.has(name)),
      [],
      'variables read by src/config.ts but missing from the table',
    );
    assert.deepEqual(
      [...documented].filter((name) => !read.has(name)),
      [],
      'variables in the table that src/config.ts does not read',
    );
  });

  it('states the defaults the code uses', () => {
    const defaults = loadConfig({});
    let checked = 0;
    for (const { names, defaults: cells } of rows()) {
      if (names.length !== cells.length) continue;
      names.forEach((name, i) => {
        // A plain value: one backticked literal, optionally followed by a note in parentheses.
        const literal = /^`([^`]+)`(?: \([^)]*\))?$/.exec(cells[i])?.[1];
        if (literal === undefined || literal.includes('$')) return; // `$DATA_DIR/…` names another setting
        checked++;
        assert.deepEqual(loadConfig({ [name]: literal }), defaults, `${name}=${literal} is the default`);
      });
    }
    assert.ok(checked > 40, `checked the plain defaults (${checked})`);
  });
});
