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
 * Adds the problems `validate` found to `byField` (the first rule each place breaks, `prefix` before
 * each field), up to MAX_ISSUES places in all.
 */
function collectInto(validate: ValidateFunction, prefix: string, byField: Map<string, FieldIssue>): void {
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
}

/** A value whose anyOf branches all failed is told by its branches; keep at least one answer. */
const atLeastOne = (failed: boolean, byField: Map<string, FieldIssue>): FieldIssue[] => {
  if (failed && byField.size === 0) byField.set('/', { field: '/', message: 'is not a program document' });
  return [...byField.values()];
};

/**
 * The schema's problems, one per place (the first rule each place breaks). `skip`: kinds whose
 * entries are not checked (known to be what an earlier apply checked).
 */
export function schemaIssues(document: unknown, skip: ReadonlySet<string> = new Set()): FieldIssue[] {
  const byField = new Map<string, FieldIssue>();
  let failed = false;
  const outline = validator('outline');
  if (!outline(document)) {
    failed = true;
    collectInto(outline, '', byField);
  }
  if (document && typeof document === 'object' && !Array.isArray(document)) {
    for (const name of PROGRAM_KIND_NAMES) {
      const entries = (document as Record<string, unknown>)[name];
      if (!Array.isArray(entries) || skip.has(name) || byField.size >= MAX_ISSUES) continue;
      const validate = validator(name);
      if (!validate(entries)) {
        failed = true;
        collectInto(validate, `/${name}`, byField);
      }
    }
  }
  return atLeastOne(failed, byField);
}

/**
 * The same problems as schemaIssues, found one entry at a time (precheck.ts checks a document as it
 * reads it, never holding all of it): `outline` checks the document without its entries (each
 * list's length alone matters to it), `entry` each entry of a kind's list, in order, and `issues`
 * answers what schemaIssues answers for the whole document. The entries' schema is the items of
 * the kind's list: ajv reports each item's problems, in order, as it does for the list.
 */
export class SchemaIssues {
  readonly #outline = new Map<string, FieldIssue>();
  readonly #kinds = new Map<string, Map<string, FieldIssue>>();
  #failed = false;

  /** Checks the outline: `document` with each list's items or holes in their places. Whether it passed. */
  outline(document: unknown): boolean {
    const outline = validator('outline');
    if (outline(document)) return true;
    this.#failed = true;
    collectInto(outline, '', this.#outline);
    return false;
  }

  /** Checks the entry at `index` of the kind's list. Whether it passed. */
  entry(name: ProgramKindName, index: number, entry: unknown): boolean {
    const validate = entryValidator(name);
    if (validate(entry)) return true;
    this.#failed = true;
    let byField = this.#kinds.get(name);
    if (!byField) this.#kinds.set(name, (byField = new Map()));
    collectInto(validate, `/${name}/${index}`, byField);
    return false;
  }

  get failed(): boolean {
    return this.#failed;
  }

  issues(): FieldIssue[] {
    const byField = new Map(this.#outline);
    // the kinds in schemaIssues's order; no two kinds share a field (each field starts with its kind)
    for (const name of PROGRAM_KIND_NAMES) {
      if (byField.size >= MAX_ISSUES) break;
      for (const issue of this.#kinds.get(name)?.values() ?? []) {
        if (byField.size >= MAX_ISSUES) break;
        if (!byField.has(issue.field)) byField.set(issue.field, issue);
      }
    }
    return atLeastOne(this.#failed, byField);
  }
}

const entryValidators = new Map<string, ValidateFunction>();
function entryValidator(name: ProgramKindName): ValidateFunction {
  let validate = entryValidators.get(name);
  if (!validate) {
    validator('outline'); // makes the ajv instance
    validate = ajv!.compile((ProgramDocument.properties as unknown as Record<string, { items: TSchema }>)[name].items);
    entryValidators.set(name, validate);
  }
  return validate;
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
