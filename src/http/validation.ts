// Request validation: one schema per route part, compiled by AJV. Query strings and path
// parameters are text on the wire, so their validator coerces ("50" → 50); bodies are JSON and are
// validated strictly (a string is never accepted where a number is due). Unknown properties are
// refused everywhere rather than silently dropped.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldIssue } from '../domain/errors.ts';
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

export function issuesFromAjv(errors: ErrorObject[], part: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  // A value over its maxLength is reported as too long only, not also item by item as a list.
  const tooLong = new Set(errors.filter((e) => e.keyword === 'maxLength').map((e) => e.instancePath));
  for (const e of errors) {
    let issue: FieldIssue;
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
      issue = { field: fieldName(e.instancePath), message: listIssue(e.parentSchema as never, e.data) };
    } else if (e.keyword === 'type' && Array.isArray(e.data) && part === 'querystring') {
      issue = { field: fieldName(e.instancePath), message: 'must be given once (use a comma-separated list for several values)' };
    } else if (e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      continue; // its branches' errors say more
    } else {
      issue = { field: fieldName(e.instancePath) || part, message: e.message ?? 'is invalid' };
    }
    const key = `${issue.field}\u0000${issue.message}`;
    if (!seen.has(key)) {
      issues.push(issue);
      seen.add(key);
    }
  }
  return issues;
}
