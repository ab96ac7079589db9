// Checks a program document against its schema (document-schema.ts) and the rules a schema cannot
// say (unique keys), collecting every problem up to a bound. Each issue's `field` is a JSON pointer
// into the document (`/controls/3/requirements/0`): the HTTP door answers them as they are, and the
// CLIs map them to file, line and column.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FieldIssue } from '../errors.ts';
import { validationFailed } from '../errors.ts';
import { ProgramDocument } from './document-schema.ts';

/** The most problems one answer lists. */
export const MAX_ISSUES = 100;

let compiled: ValidateFunction | undefined;
function validator(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false, unicodeRegExp: true });
    compiled = ajv.compile(ProgramDocument);
  }
  return compiled;
}

const escapePointer = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1');

const TYPE_WORDS: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object (a mapping)',
  null: 'null',
};

function messageOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return 'is not a field of this entry';
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'type':
      return `must be ${String(p.type)
        .split(',')
        .map((t) => TYPE_WORDS[t] ?? t)
        .join(' or ')}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters long`;
    case 'maxLength':
      return `must be at most ${p.limit} characters long`;
    case 'minimum':
      return `must be ${p.limit} or more`;
    case 'maximum':
      return `must be ${p.limit} or less`;
    case 'maxItems':
      return `must list at most ${p.limit} items`;
    case 'uniqueItems':
      return 'must not list the same item twice';
    case 'pattern': {
      const description = (e.parentSchema as { description?: string } | undefined)?.description;
      return description ? `is not valid: ${description}` : `must match ${p.pattern}`;
    }
    default:
      return e.message ?? 'is invalid';
  }
}

/** The schema's problems, one per place (the first rule each place breaks). */
export function schemaIssues(document: unknown): FieldIssue[] {
  const validate = validator();
  if (validate(document)) return [];
  const byField = new Map<string, FieldIssue>();
  for (const e of validate.errors ?? []) {
    if (e.keyword === 'anyOf' || e.keyword === 'if') continue;
    let field = e.instancePath;
    if (e.keyword === 'additionalProperties')
      field += `/${escapePointer(String((e.params as { additionalProperty: string }).additionalProperty))}`;
    else if (e.keyword === 'required') field += `/${escapePointer(String((e.params as { missingProperty: string }).missingProperty))}`;
    if (field === '') field = '/';
    if (!byField.has(field)) byField.set(field, { field, message: messageOf(e) });
    if (byField.size >= MAX_ISSUES) break;
  }
  // a value whose anyOf branches all failed is told by its branches; keep at least one answer
  if (byField.size === 0) byField.set('/', { field: '/', message: 'is not a program document' });
  return [...byField.values()];
}

/** Collects issues up to the bound; `full()` says when to stop looking. */
export class IssueList {
  readonly issues: FieldIssue[] = [];
  add(field: string, message: string): void {
    if (this.issues.length < MAX_ISSUES) this.issues.push({ field, message });
  }
  full(): boolean {
    return this.issues.length >= MAX_ISSUES;
  }
  throwIfAny(): void {
    if (this.issues.length > 0) throw validationFailed(this.issues, 'The program document is invalid.');
  }
}

/** Throws validation_failed with every schema problem of the document. */
export function assertDocumentShape(document: unknown): void {
  const issues = schemaIssues(document);
  if (issues.length > 0) throw validationFailed(issues, 'The program document is invalid.');
}
