// Request validation: one schema per route part, compiled by AJV. Query strings and path
// parameters are text on the wire, so their validator coerces ("50" → 50); bodies are JSON and are
// validated strictly (a string is never accepted where a number is due). Unknown properties are
// refused everywhere rather than silently dropped.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldIssue } from '../shared/errors.ts';
import { boundMessage, typeMessage } from '../shared/validation-words.ts';
import { listIssue } from './schemas/lists.ts';

// ajv-formats ships CommonJS with a default export property.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    useDefaults: true,
    verbose: true,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

const textAjv = makeAjv(true);
const jsonAjv = makeAjv(false);
const cache = new WeakMap<object, ValidateFunction>();

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? jsonAjv : textAjv;
  let validate = cache.get(schema);
  if (!validate || httpPart === 'body') validate = ajv.compile(schema);
  cache.set(schema, validate);
  return validate as never;
};

/** `/affectedResources/0/tags` → `affectedResources[0].tags` */
function fieldName(path: string, extra?: string): string {
  const parts = path.split('/').filter(Boolean);
  if (extra) parts.push(extra);
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/**
 * What a pattern asks for, in words, for the patterns of the route schemas. A schema can also say
 * it itself with `x-pattern-message` (the message after the field's name).
 */
const PATTERN_MESSAGES: Record<string, string> = {
  '\\S': 'must not be blank',
  '^(true|false|1|0)$': 'must be true, false, 1 or 0',
  '^\\d+$': 'must be a whole number written with digits only',
};

/** `a, b or c` */
function alternatives(values: readonly unknown[]): string {
  const shown = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
}

const TYPE_WORDS: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'text (a JSON string)',
  boolean: 'true or false',
  array: 'a list (a JSON array)',
  object: 'an object',
  null: 'null',
};

const FORMAT_WORDS: Record<string, string> = {
  email: 'an email address',
  uri: 'a URL (https://…)',
  'date-time': 'a date and time (ISO 8601, e.g. 2026-01-31T12:00:00Z)',
  date: 'a date (YYYY-MM-DD)',
  uuid: 'a UUID',
};

/** The message (after the field's name) of one validator error, in words a person can act on. */
function messageOf(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
  switch (e.keyword) {
    case 'enum':
      return `must be ${alternatives(params.allowedValues as unknown[])}`;
    case 'const':
      return `must be ${alternatives([params.allowedValue])}`;
    case 'type':
      return typeMessage(String(params.type), TYPE_WORDS);
    case 'exclusiveMinimum':
      return `must be more than ${params.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${params.limit}`;
    case 'minItems':
      return `must list at least ${params.limit} item${params.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must list at most ${params.limit} item${params.limit === 1 ? '' : 's'}`;
    case 'format':
      return `must be ${FORMAT_WORDS[String(params.format)] ?? `in the ${params.format} format`}`;
    case 'pattern': {
      const own = parent['x-pattern-message'];
      if (typeof own === 'string') return own;
      return PATTERN_MESSAGES[String(params.pattern)] ?? `must match the pattern ${params.pattern}`;
    }
    default:
      return boundMessage(e.keyword, params.limit) ?? e.message ?? 'is invalid';
  }
}

// When one value breaks several rules, the message of the first rule in this order is given: the
// one that says most about what to send (a count of "abc" is told "must be 50 or 100", not "must
// be a whole number" as well).
const PRECEDENCE = [
  'required',
  'additionalProperties',
  'x-list',
  'enum',
  'const',
  'anyOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'type',
];
const rank = (keyword: string) => {
  const at = PRECEDENCE.indexOf(keyword);
  return at === -1 ? PRECEDENCE.length : at;
};

/**
 * The validator's errors as the `details` of a 400: one entry per field (the field named as the
 * client wrote it: `affectedResources[0].name`, a query parameter's name), with what is allowed in
 * words ("must be 50 or 100", "must look like VUL-1234 or CVE-2024-12345").
 */
export function issuesFromAjv(errors: ErrorObject[], part: string): FieldIssue[] {
  // A value over its maxLength is reported as too long only, not also item by item as a list.
  const tooLong = new Set(errors.filter((e) => e.keyword === 'maxLength').map((e) => e.instancePath));
  const chosen = new Map<string, { issue: FieldIssue; rank: number }>();
  // the fields of an anyOf whose branches are constants: "must be a or b" for the whole of it
  const constantChoices = new Map<string, unknown[]>();
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') continue;
    const branches = (e.schema ?? []) as Array<Record<string, unknown>>;
    if (Array.isArray(branches) && branches.length > 0 && branches.every((b) => b && 'const' in b))
      constantChoices.set(
        fieldName(e.instancePath) || part,
        branches.map((b) => b.const),
      );
  }
  for (const e of errors) {
    let issue: FieldIssue;
    let keyword = e.keyword;
    if (e.keyword === 'additionalProperties') {
      const name = (e.params as { additionalProperty: string }).additionalProperty;
      issue = {
        field: fieldName(e.instancePath, name),
        message: part === 'body' ? 'is not an accepted field' : 'is not a known parameter',
      };
    } else if (e.keyword === 'required') {
      issue = { field: fieldName(e.instancePath, (e.params as { missingProperty: string }).missingProperty), message: 'is required' };
    } else if (e.keyword === 'pattern' && tooLong.has(e.instancePath)) {
      continue;
    } else if (e.keyword === 'pattern' && e.parentSchema && 'x-list' in e.parentSchema) {
      keyword = 'x-list';
      issue = { field: fieldName(e.instancePath), message: listIssue(e.parentSchema as never, e.data) };
    } else if (e.keyword === 'type' && Array.isArray(e.data) && part === 'querystring') {
      keyword = 'x-list';
      issue = { field: fieldName(e.instancePath), message: 'must be given once (use a comma-separated list for several values)' };
    } else if (e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      const field = fieldName(e.instancePath) || part;
      const choices = constantChoices.get(field);
      if (!choices) continue; // its branches' errors say more
      issue = { field, message: `must be ${alternatives(choices)}` };
    } else {
      const field = fieldName(e.instancePath) || part;
      // a constant of an anyOf is reported once, by the anyOf, with every choice
      if (e.keyword === 'const' && constantChoices.has(field)) continue;
      issue = { field, message: messageOf(e) };
    }
    const r = rank(keyword);
    const held = chosen.get(issue.field);
    if (!held || r < held.rank) chosen.set(issue.field, { issue, rank: r });
  }
  return [...chosen.values()].map((c) => c.issue);
}
