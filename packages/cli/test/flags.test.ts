// In process, without a server: every query parameter the specification lists for each read
// endpoint is a flag of the matching command, and the small pieces the commands rely on (list
// splitting, dates, the INI update, streamed JSON) behave.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions, parseTime, queryFrom, splitList, UsageError } from '../src/args.ts';
import { COMMANDS, findCommand } from '../src/commands/index.ts';
import { parseIni, replaceSection } from '../src/ini.ts';
import { jsonArrayWriter } from '../src/output/json.ts';

/** The query parameters of each read endpoint, from the specification. */
const SPEC_QUERY: Record<string, string[]> = {
  'frameworks list': ['entityIds', 'fields'],
  'controls list': ['status', 'frameworkIds', 'entityIds', 'assigneeEmails', 'domains', 'functionGroupings', 'controlScope', 'fields'],
  'controls get': ['fields'],
  'policies list': [
    'status',
    'frameworkIds',
    'controlIds',
    'entityIds',
    'isRelevant',
    'assigneeEmails',
    'approverEmails',
    'departments',
    'nextReviewAtFrom',
    'nextReviewAtTo',
    'fields',
  ],
  'policies get': ['fields'],
  'evidence list': [
    'status',
    'frameworkIds',
    'controlIds',
    'entityIds',
    'isRelevant',
    'assigneeEmails',
    'approverEmails',
    'departments',
    'nextReviewAtFrom',
    'nextReviewAtTo',
    'fields',
  ],
  'evidence get': ['fields'],
  'tests list': ['status', 'frameworkIds', 'assigneeEmails', 'applications', 'fields'],
  'tests get': ['resourceStatus', 'fields'],
  // count is --page-size and nextCursor is the walk itself
  'vulnerabilities list': ['status', 'severity', 'source', 'fixAvailable', 'fields'],
  'vulnerabilities get': ['resourceStatus', 'fields'],
};

const kebab = (camel: string) => camel.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

describe('flags', () => {
  for (const [name, params] of Object.entries(SPEC_QUERY)) {
    it(`${name} has a flag for every query parameter of the spec, named in kebab-case`, () => {
      const [group, action] = name.split(' ');
      const command = findCommand(group, action);
      assert.ok(command, `${name} exists`);
      const byParam = new Map(command.options.filter((o) => o.param).map((o) => [o.param!, o.name]));
      assert.deepEqual([...byParam.keys()].sort(), [...params].sort());
      for (const [param, flag] of byParam) assert.equal(flag, kebab(param));
    });
  }

  it('every read endpoint has its command', () => {
    const names = new Set(COMMANDS.map((c) => `${c.group} ${c.action}`));
    for (const name of Object.keys(SPEC_QUERY)) assert.ok(names.has(name), name);
    for (const write of ['vulnerabilities create', 'vulnerabilities update', 'evidence upload']) assert.ok(names.has(write), write);
  });

  it('list flags take comma-separated values and repeat; conversions refuse what they cannot read', () => {
    const command = findCommand('policies', 'list')!;
    const { values } = parseOptions(
      [
        '--status',
        'draft, published',
        '--status',
        'needs_review',
        '--is-relevant',
        'yes',
        '--next-review-at-from',
        '2026-03-31',
        '--next-review-at-to',
        '1700000000000',
      ],
      command.options,
      { min: 0, max: 0, name: '' },
    );
    assert.deepEqual(queryFrom(command.options, values), {
      status: ['draft', 'published', 'needs_review'],
      isRelevant: true,
      nextReviewAtFrom: Date.UTC(2026, 2, 31),
      nextReviewAtTo: 1700000000000,
    });
    assert.deepEqual(splitList(['a,,b', ' c ']), ['a', 'b', 'c']);
    assert.throws(() => parseOptions(['--is-relevant', 'perhaps'], command.options, { min: 0, max: 0, name: '' }), UsageError);
    assert.throws(() => parseOptions(['--next-review-at-to', 'tomorrow'], command.options, { min: 0, max: 0, name: '' }), UsageError);
    assert.throws(() => parseOptions(['--unknown'], command.options, { min: 0, max: 0, name: '' }), UsageError);
    assert.equal(parseTime('--x', '2026-01-15T12:30:00Z'), Date.UTC(2026, 0, 15, 12, 30));
    assert.equal(
      parseTime('--x', 'now', () => 42),
      42,
    );
  });

  it('configure rewrites one profile and keeps the others and their comments', () => {
    const before = '# mine\n[default]\nclient_id = a\nclient_secret = b\n\n# the writer\n[rw]\nclient_id = c\n';
    const after = replaceSection(before, 'default', [
      ['client_id', 'x'],
      ['client_secret', 'y'],
      ['region', 'eu'],
    ]);
    assert.equal(after, '# mine\n[default]\nclient_id = x\nclient_secret = y\nregion = eu\n\n# the writer\n[rw]\nclient_id = c\n');
    const added = replaceSection(after, 'new', [['client_id', 'n']]);
    assert.deepEqual([...parseIni(added).keys()], ['default', 'rw', 'new']);
    assert.equal(parseIni(added).get('rw')!.get('client_id'), 'c');
    assert.throws(() => parseIni('client_id = outside a section\n'), SyntaxError);
  });

  it('a JSON list streamed item by item equals JSON.stringify(list, null, 2)', () => {
    for (const list of [[], [{ a: 1, b: [1, { c: 'x' }] }], [1, 'two', { three: [] }]]) {
      const writer = jsonArrayWriter();
      assert.equal(list.map((item) => writer.item(item)).join('') + writer.end(), `${JSON.stringify(list, null, 2)}\n`);
    }
  });
});
