// Comma-separated list parameters (`status=open, closed`). The wire value is one string; the
// schema's pattern accepts only known values (optional spaces around commas), so an unknown value
// fails validation, and the route splits the string with `parseList`.
import { Type } from 'typebox';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface ListSchemaMeta {
  /** the allowed values, or null for free values (IDs, emails) */
  'x-list': readonly string[] | null;
}

/**
 * The longest list parameter accepted: far more IDs or values than any filter needs, and short
 * enough that the request still fits Node's header limit, so a longer one is refused naming it.
 */
export const MAX_LIST_PARAM_LENGTH = 4096;

/** A list of known values: `status=compliant,non_compliant`. */
export function enumList<const T extends readonly string[]>(values: T, description?: string) {
  const one = `(?:${values.map(escapeRegExp).join('|')})`;
  return Type.String({
    maxLength: MAX_LIST_PARAM_LENGTH,
    pattern: `^\\s*${one}\\s*(?:,\\s*${one}\\s*)*$`,
    description: `${description ? `${description} ` : ''}Comma-separated list of: ${values.join(', ')}.`,
    'x-list': values,
  });
}

/** A list of free values such as IDs or emails: non-empty items separated by commas. */
export function textList(description: string) {
  return Type.String({
    maxLength: MAX_LIST_PARAM_LENGTH,
    pattern: '^\\s*[^,\\s][^,]*(?:,\\s*[^,\\s][^,]*)*$',
    description,
    'x-list': null,
  });
}

export function parseList<T extends string = string>(value: string | undefined): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return [...new Set(items)] as T[];
}

/** Names the unknown entries of a list value for the validation message. */
export function listIssue(schema: ListSchemaMeta, data: unknown): string {
  const allowed = schema['x-list'];
  const items = typeof data === 'string' ? data.split(',').map((s) => s.trim()) : [];
  const suffix = allowed ? `; allowed: ${allowed.join(', ')}` : '';
  if (items.every((s) => s === '')) return `must not be empty${suffix}`;
  if (items.includes('')) return `must be a comma-separated list without empty entries${suffix}`;
  const unknown = allowed ? items.filter((s) => !allowed.includes(s)) : [];
  return `unknown value${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `'${u}'`).join(', ')}${suffix}`;
}

/** A boolean query parameter: `true`/`false` or `1`/`0`. */
export function booleanParam(description: string) {
  return Type.String({ maxLength: 5, pattern: '^(true|false|1|0)$', description: `${description} Accepts true/false or 1/0.` });
}

export const parseBoolean = (value: string | undefined): boolean | undefined =>
  value === undefined ? undefined : value === 'true' || value === '1';

/** A non-negative integer epoch-milliseconds query parameter (inclusive bound). */
export function epochMsParam(description: string) {
  return Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: `${description} Epoch milliseconds, integer, minimum 0.`,
  });
}
