// Checks a program document against its schema (document-schema.ts) and the rules a schema cannot
// say (unique keys), collecting every problem up to a bound. Each issue's `field` is a JSON pointer
// into the document (`/controls/3/requirements/0`): the HTTP door answers them as they are, and the
// CLIs map them to file, line and column.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FieldIssue } from '../../shared/errors.ts';
import { validationFailed } from '../../shared/errors.ts';
import { boundMessage, typeMessage } from '../../shared/validation-words.ts';
import { Type, type TSchema } from 'typebox';
import { ProgramDocument } from './document-schema.ts';
import { KIND_MAX_ENTRIES } from '../kinds/fields.ts';
import { PROGRAM_KIND_NAMES, type ProgramKindName } from '../kinds/kind.ts';

/** The most problems one answer lists. */
export const MAX_ISSUES = 100;

// The document is checked in parts: its outline (the version, which kinds, each a list) and each
// kind's list on its own, so a plan can leave out kinds it knows are unchanged (settled-kinds.ts).
// Together the parts are exactly ProgramDocument.
let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();
function validator(part: 'outline' | ProgramKindName): ValidateFunction {
  let validate = compiled.get(part);
  if (!validate) {
    ajv ??= new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false, unicodeRegExp: true });
    const properties = ProgramDocument.properties as Record<string, TSchema>;
    const schema =
      part === 'outline'
        ? Type.Object(
            {
              version: properties.version,
              ...Object.fromEntries(
                PROGRAM_KIND_NAMES.map((name) => [name, Type.Optional(Type.Array(Type.Unknown(), { maxItems: KIND_MAX_ENTRIES }))]),
              ),
            },
            { additionalProperties: false },
          )
        : properties[part];
    validate = ajv.compile(schema);
    compiled.set(part, validate);
  }
  return validate;
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
      return typeMessage(String(p.type), TYPE_WORDS);
    case 'maxItems':
      return `must list at most ${p.limit} items`;
    case 'pattern': {
      const description = (e.parentSchema as { description?: string } | undefined)?.description;
      return description ? `is not valid: ${description}` : `must match ${p.pattern}`;
    }
    default:
      return boundMessage(e.keyword, p.limit) ?? e.message ?? 'is invalid';
  }
}

/**
 * The schema's problems, one per place (the first rule each place breaks). `skip`: kinds whose
 * entries are not checked (known to be what an earlier apply checked).
 */
export function schemaIssues(document: unknown, skip: ReadonlySet<string> = new Set()): FieldIssue[] {
  const byField = new Map<string, FieldIssue>();
  let failed = false;
  const collect = (validate: ValidateFunction, prefix: string) => {
    failed = true;
    for (const e of validate.errors ?? []) {
      if (byField.size >= MAX_ISSUES) return;
      if (e.keyword === 'anyOf' || e.keyword === 'if') continue;
      let field = prefix + e.instancePath;
      if (e.keyword === 'additionalProperties')
        field += `/${escapePointer(String((e.params as { additionalProperty: string }).additionalProperty))}`;
      else if (e.keyword === 'required') field += `/${escapePointer(String((e.params as { missingProperty: string }).missingProperty))}`;
      if (field === '') field = '/';
      if (!byField.has(field)) byField.set(field, { field, message: messageOf(e) });
    }
  };
  const outline = validator('outline');
  if (!outline(document)) collect(outline, '');
  if (document && typeof document === 'object' && !Array.isArray(document)) {
    for (const name of PROGRAM_KIND_NAMES) {
      const entries = (document as Record<string, unknown>)[name];
      if (!Array.isArray(entries) || skip.has(name) || byField.size >= MAX_ISSUES) continue;
      const validate = validator(name);
      if (!validate(entries)) collect(validate, `/${name}`);
    }
  }
  // a value whose anyOf branches all failed is told by its branches; keep at least one answer
  if (failed && byField.size === 0) byField.set('/', { field: '/', message: 'is not a program document' });
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

/** Throws validation_failed with every schema problem of the document (`skip`: kinds not checked, see schemaIssues). */
export function assertDocumentShape(document: unknown, skip?: ReadonlySet<string>): void {
  const issues = schemaIssues(document, skip);
  if (issues.length > 0) throw validationFailed(issues, 'The program document is invalid.');
}
