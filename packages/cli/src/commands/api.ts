// compliance api [METHOD] PATH: any request to the service with the credential handled, as `gh api`
// does for GitHub: the token (and its renewal), the retries and the Idempotency-Key of a write come
// from the SDK's `client.request`, so an endpoint newer than this CLI is usable at once. The answer's
// JSON body goes to stdout unchanged (pretty-printed); errors are reported and exit like any command.
import fs from 'node:fs';
import { UsageError } from '../args.ts';
import { jsonDocument, jsonArrayWriter } from '../output/json.ts';
import { ndjsonLine } from '../output/ndjson.ts';
import { RatePacer } from '../rate-pacer.ts';
import type { RawQueryValue } from '../sdk.ts';
import type { Command } from './command.ts';
import { idempotencyKeyOption, readJsonObject, sendWrite } from './writes.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
/** --paginate stops here: a walk of a million findings by mistake would never end. */
const MAX_PAGES = 10_000;

export const apiCommand: Command = {
  group: 'api',
  summary: 'send a request to any endpoint, with the credential handled (like gh api)',
  args: '[METHOD] PATH',
  positionals: { min: 1, max: 2, name: 'PATH' },
  options: [
    {
      name: 'field',
      short: 'f',
      kind: 'string',
      repeatable: true,
      valueName: 'KEY=VALUE',
      help: 'a string parameter: a query parameter for GET, a field of the JSON body otherwise; repeat a key for a list',
    },
    {
      name: 'typed-field',
      short: 'F',
      kind: 'string',
      repeatable: true,
      valueName: 'KEY=VALUE',
      help: 'as --field, but true, false, null, numbers and JSON arrays or objects keep their type; @FILE reads a file',
    },
    {
      name: 'input',
      kind: 'string',
      valueName: 'FILE|-',
      help: 'the JSON request body from a file (- reads stdin); fields then go to the query',
    },
    { name: 'header', short: 'H', kind: 'string', repeatable: true, valueName: '"NAME: VALUE"', help: 'an extra request header' },
    { name: 'include', short: 'i', kind: 'switch', help: 'print the HTTP status and the response headers before the body' },
    {
      name: 'paginate',
      kind: 'switch',
      help: "follow meta.nextCursor to the last page and print every page's data as one JSON array (or NDJSON with -o ndjson)",
    },
    idempotencyKeyOption,
  ],
  notes: [
    'PATH is a path of the service, starting with /v1/ or /oauth/ (a full URL is refused: the token goes to the configured address only).',
    'METHOD defaults to GET, or to POST with --input. Fields are query parameters for GET (and with --input), else the JSON body.',
    'Writes (POST, PUT, PATCH, DELETE) send an Idempotency-Key, printed when the request fails. Output is the response body as JSON.',
  ].join('\n'),
  examples: [
    'api /v1/frameworks',
    'api GET /v1/controls -f status=non_compliant -f functionGroupings=protect',
    'api /v1/vulnerabilities -f severity=critical -F count=100 --paginate -o ndjson',
    'api POST /v1/vulnerabilities --input examples/finding.json --idempotency-key create-vul-9050',
    "api PATCH '/v1/vulnerabilities/api%23VUL-9050' -f reportLink=https://reports.example.com/9050",
    'api -i /v1/frameworks -H "Accept-Language: en"',
  ],
  async run(ctx, values, positionals) {
    const [method, path] = methodAndPath(positionals, values);
    const fields = [
      ...((values.field as string[] | undefined) ?? []).map((f) => parseField(f, '--field', false)),
      ...((values['typed-field'] as string[] | undefined) ?? []).map((f) => parseField(f, '--typed-field', true)),
    ];
    const headers: Record<string, string> = {};
    for (const h of (values.header as string[] | undefined) ?? []) {
      const colon = h.indexOf(':');
      if (colon <= 0) throw new UsageError(`--header takes "NAME: VALUE"; not "${h}"`);
      const name = h.slice(0, colon).trim();
      if (['authorization', 'idempotency-key', 'content-type', 'host', 'content-length'].includes(name.toLowerCase()))
        throw new UsageError(`--header: ${name} is set by the command (the credential's token, --idempotency-key, JSON bodies)`);
      headers[name] = h.slice(colon + 1).trim();
    }

    let body: unknown;
    const query: Record<string, RawQueryValue> = {};
    if (values.input !== undefined) body = await readJsonBody(values.input as string, ctx);
    const fieldsToQuery = method === 'GET' || method === 'HEAD' || body !== undefined;
    for (const { key, value } of fields) {
      if (fieldsToQuery) {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        const prior = query[key];
        query[key] = prior === undefined ? text : [...(Array.isArray(prior) ? prior : [String(prior)]), text];
      } else {
        body ??= {};
        const target = body as Record<string, unknown>;
        const prior = target[key];
        target[key] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
      }
    }

    const client = ctx.client();
    const send = (extra: Record<string, RawQueryValue> = {}) => {
      const input = { query: { ...query, ...extra }, body, headers, signal: ctx.signal };
      return ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)
        ? sendWrite(ctx, values, (options) => client.request<Record<string, unknown>>(method, path, { ...input, ...options }))
        : client.request<Record<string, unknown>>(method, path, input);
    };

    if (!values.paginate) {
      const result = await send();
      if (values.include) await ctx.io.out(describeResponse(result.response.status, result.response.headers));
      if (result !== undefined && Object.keys(result).length > 0) await ctx.io.out(jsonDocument(result));
      return;
    }

    const ndjson = ctx.format === 'ndjson';
    const json = jsonArrayWriter();
    const pacer = new RatePacer();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      if (page > MAX_PAGES) throw new UsageError(`--paginate stops after ${MAX_PAGES} pages; narrow the request with filters`);
      const result = await send(cursor ? { nextCursor: cursor } : {});
      if (values.include && page === 1) await ctx.io.out(describeResponse(result.response.status, result.response.headers));
      const data = result.data;
      if (!Array.isArray(data)) throw new UsageError(`--paginate needs a list answer ({ data: [...] }); ${path} answered something else`);
      for (const item of data) await ctx.io.out(ndjson ? ndjsonLine(item) : json.item(item));
      const next = (result.meta as { nextCursor?: unknown } | undefined)?.nextCursor;
      if (typeof next !== 'string' || next === '' || next === cursor) break;
      cursor = next;
      pacer.observe(result.response.headers);
      await pacer.wait(ctx.signal, (ms) => ctx.notice(`waiting ${Math.ceil(ms / 1000)} s for the rate-limit window`));
    }
    if (!ndjson) await ctx.io.out(json.end());
  },
};

function methodAndPath(positionals: string[], values: Record<string, unknown>): [string, string] {
  let [method, path] = positionals.length === 2 ? positionals : [undefined, positionals[0]];
  // Without a method: POST for a body from --input, else GET (fields are then query parameters).
  method = (method ?? (values.input !== undefined ? 'POST' : 'GET')).toUpperCase();
  if (!METHODS.includes(method)) throw new UsageError(`unknown HTTP method "${positionals[0]}"; use one of ${METHODS.join(', ')}`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//'))
    throw new UsageError(`give a path of the service such as /v1/frameworks, not a URL ("${path}"); the address is --base-url`);
  if (!path.startsWith('/')) path = `/${path}`;
  return [method, path];
}

function parseField(text: string, flag: string, typed: boolean): { key: string; value: unknown } {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} takes KEY=VALUE; not "${text}"`);
  const key = text.slice(0, eq);
  const raw = text.slice(eq + 1);
  if (!typed) return { key, value: raw };
  if (raw.startsWith('@')) {
    try {
      return { key, value: fs.readFileSync(raw.slice(1), 'utf8') };
    } catch (err) {
      throw new UsageError(`${flag} ${key}: cannot read ${raw.slice(1)}: ${(err as Error).message}`);
    }
  }
  try {
    return { key, value: JSON.parse(raw) };
  } catch {
    return { key, value: raw };
  }
}

async function readJsonBody(source: string, ctx: Parameters<Command['run']>[0]): Promise<unknown> {
  return readJsonObject(source, ctx, '--input');
}

function describeResponse(status: number, headers: Headers): string {
  const lines = [`HTTP ${status}`];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  return `${lines.join('\n')}\n\n`;
}
