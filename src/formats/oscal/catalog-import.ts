// An OSCAL 1.x catalog (a resolved profile is a catalog too) → a framework and its requirements
// (docs/oscal.md has the rules). Every control and control enhancement is a requirement, in
// document order, withdrawn ones left out: the code is the control's `label` property (its id
// upper-cased when it has none), the name its title, the key its id. The document is checked as it
// is walked, iteratively and to a bounded depth; every problem found (up to CATALOG_ISSUES_MAX) is
// reported at once as a `validation_failed`, each naming its place as a JSON pointer.
import { validationFailed, type FieldIssue } from '../../shared/errors.ts';
import {
  FRAMEWORK_NAME_MAX_LENGTH,
  FRAMEWORK_REQUIREMENTS_MAX,
  REQUIREMENT_CODE_MAX_LENGTH,
  REQUIREMENT_NAME_MAX_LENGTH,
  type ProgramFramework,
  type ProgramRequirement,
} from '../../domain/frameworks/program-schema.ts';
import { RECORD_KEY_MAX_LENGTH, RECORD_KEY_PATTERN } from '../../domain/kinds/fields.ts';
import { invisibleIssue, typedName } from '../../domain/text.ts';
import { OSCAL_NAMESPACE, OSCAL_TOKEN, UUID_PATTERN } from './catalog-shape.ts';

/** Most problems reported for one document; the walk stops there. */
export const CATALOG_ISSUES_MAX = 50;
/** Deepest nesting of groups and controls read (NIST SP 800-53 needs 3: group, control, enhancement). */
export const CATALOG_NESTING_MAX = 32;

export interface CatalogImportOptions {
  /** The framework's key; by default a slug of the catalog's title. */
  key?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Thrown inside the walk when CATALOG_ISSUES_MAX problems are known: there is no point going on. */
class EnoughIssues extends Error {}

class Issues {
  readonly list: FieldIssue[] = [];
  add(field: string, message: string): void {
    this.list.push({ field, message });
    if (this.list.length >= CATALOG_ISSUES_MAX) throw new EnoughIssues();
  }
}

/**
 * A line of text a person reads (a title, a label): trimmed, NFC, not blank, no control or
 * invisible characters, at most `max` characters. Undefined, with the problem recorded, otherwise.
 */
function readLine(value: unknown, field: string, max: number, issues: Issues, what = 'text'): string | undefined {
  if (value === undefined) return void issues.add(field, `is required: the ${what}`);
  if (typeof value !== 'string') return void issues.add(field, `must be a string (the ${what})`);
  const text = typedName(value);
  if (text === undefined) return void issues.add(field, invisibleIssue(field).message);
  if (text === '') return void issues.add(field, `must not be blank (the ${what})`);
  if (text.length > max) return void issues.add(field, `is ${text.length} characters long; the ${what} may have at most ${max}`);
  return text;
}

/** The framework's default key: the title's letters and digits, lower-cased, joined by `-`. */
export function keyFromTitle(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+/, '')
    .slice(0, RECORD_KEY_MAX_LENGTH)
    .replace(/-+$/, '');
}

interface ControlProps {
  label?: { value: unknown; field: string };
  withdrawn: boolean;
}

/**
 * The OSCAL properties this import reads: `label` (the first without a `class`, else the first;
 * NIST's catalogs add a second, zero-padded label with class `sp800-53a`) and `status` =
 * `withdrawn`. Properties in another namespace are someone else's vocabulary and are skipped.
 */
function readProps(node: Json, pointer: string, issues: Issues): ControlProps {
  const props = node.props;
  const found: ControlProps = { withdrawn: false };
  if (props === undefined) return found;
  if (!Array.isArray(props)) {
    issues.add(`${pointer}/props`, 'must be an array of properties ({ "name": ..., "value": ... })');
    return found;
  }
  let classedLabel: ControlProps['label'];
  for (let i = 0; i < props.length; i++) {
    const prop = props[i];
    const field = `${pointer}/props/${i}`;
    if (!isObject(prop) || typeof prop.name !== 'string' || typeof prop.value !== 'string') {
      issues.add(field, 'must be a property: an object with a string `name` and a string `value`');
      continue;
    }
    if (prop.ns !== undefined && prop.ns !== OSCAL_NAMESPACE) continue;
    if (prop.name === 'status' && prop.value.trim().toLowerCase() === 'withdrawn') found.withdrawn = true;
    if (prop.name === 'label') {
      const label = { value: prop.value, field: `${field}/value` };
      if (prop.class === undefined) found.label ??= label;
      else classedLabel ??= label;
    }
  }
  found.label ??= classedLabel;
  return found;
}

interface Frame {
  node: unknown;
  pointer: string;
  kind: 'group' | 'control';
  depth: number;
}

/** `pointer`'s child lists in document order: controls before groups, as OSCAL's model orders a catalog's. */
function children(node: Json, pointer: string, depth: number, issues: Issues): Frame[] {
  const frames: Frame[] = [];
  for (const [list, kind] of [
    ['controls', 'control'],
    ['groups', 'group'],
  ] as const) {
    const items = node[list];
    if (items === undefined) continue;
    if (!Array.isArray(items)) {
      issues.add(`${pointer}/${list}`, `must be an array of ${kind}s`);
      continue;
    }
    if (items.length > 0 && depth + 1 > CATALOG_NESTING_MAX) {
      issues.add(`${pointer}/${list}`, `is nested more than ${CATALOG_NESTING_MAX} groups and controls deep`);
      continue;
    }
    for (let i = 0; i < items.length; i++) frames.push({ node: items[i], pointer: `${pointer}/${list}/${i}`, kind, depth: depth + 1 });
  }
  return frames;
}

/** The catalog object, or undefined with the problem recorded. */
function readCatalog(document: unknown, issues: Issues): Json | undefined {
  if (!isObject(document)) return void issues.add('', 'must be a JSON object: an OSCAL catalog document is { "catalog": { ... } }');
  const catalog = document.catalog;
  if (catalog === undefined) {
    if (document.profile !== undefined) {
      return void issues.add('/profile', 'is an OSCAL profile; resolve it into a catalog first (a resolved profile is a catalog)');
    }
    return void issues.add('/catalog', 'is required: an OSCAL catalog document is { "catalog": { ... } }');
  }
  if (!isObject(catalog)) return void issues.add('/catalog', 'must be an object');
  return catalog;
}

/** The framework's key and name, from the catalog's uuid and metadata and the caller's key. */
function readHeader(catalog: Json, options: CatalogImportOptions, issues: Issues): { key?: string; name?: string } {
  if (catalog.uuid === undefined) issues.add('/catalog/uuid', "is required: the catalog's UUID");
  else if (typeof catalog.uuid !== 'string' || !UUID_PATTERN.test(catalog.uuid)) {
    issues.add('/catalog/uuid', 'must be a UUID (8-4-4-4-12 hexadecimal digits)');
  }

  let name: string | undefined;
  const metadata = catalog.metadata;
  if (!isObject(metadata)) {
    issues.add('/catalog/metadata', metadata === undefined ? "is required: the catalog's title and versions" : 'must be an object');
  } else {
    name = readLine(metadata.title, '/catalog/metadata/title', FRAMEWORK_NAME_MAX_LENGTH, issues, "framework's name");
    const oscalVersion = metadata['oscal-version'];
    if (oscalVersion === undefined) {
      issues.add('/catalog/metadata/oscal-version', 'is required: the OSCAL version the catalog follows (1.x)');
    } else if (typeof oscalVersion !== 'string' || !/^1\.\d+/.test(oscalVersion)) {
      issues.add('/catalog/metadata/oscal-version', `is ${JSON.stringify(oscalVersion)}; only OSCAL 1.x catalogs are read`);
    }
  }

  let key = options.key;
  if (key !== undefined) {
    if (!RECORD_KEY_PATTERN.test(key) || key.length > RECORD_KEY_MAX_LENGTH) {
      issues.add('key', `must be 1-${RECORD_KEY_MAX_LENGTH} letters, digits, "_", "." or "-", starting with a letter, a digit or "_"`);
    }
  } else if (name !== undefined) {
    key = keyFromTitle(name);
    if (key === '') issues.add('/catalog/metadata/title', "has no letter or digit to make the framework's key from; give the key");
  }
  return { key, name };
}

/** What the walk has seen so far: ids and codes (each with where it was first), requirements kept. */
interface Seen {
  controlIds: Map<string, string>;
  codes: Map<string, string>;
  requirements: ProgramRequirement[];
}

/**
 * One control: its id, title and code checked; a requirement added unless it is withdrawn.
 * Returns whether its enhancements are to be read (not when it is withdrawn).
 */
function readControl(node: Json, pointer: string, props: ControlProps, seen: Seen, issues: Issues): boolean {
  const id = node.id;
  const idIsToken = typeof id === 'string' && OSCAL_TOKEN.test(id);
  if (id === undefined) issues.add(`${pointer}/id`, "is required: the control's identifier");
  else if (!idIsToken) issues.add(`${pointer}/id`, 'must be an OSCAL token: a letter or "_", then letters, digits, ".", "-" or "_"');
  else if (id.length > RECORD_KEY_MAX_LENGTH) {
    issues.add(`${pointer}/id`, `is ${id.length} characters long; a control's id may have at most ${RECORD_KEY_MAX_LENGTH}`);
  } else if (seen.controlIds.has(id)) {
    issues.add(`${pointer}/id`, `is "${id}", the id of ${seen.controlIds.get(id)} too; control ids must be unique`);
  } else seen.controlIds.set(id, pointer);
  const title = readLine(node.title, `${pointer}/title`, REQUIREMENT_NAME_MAX_LENGTH, issues, "control's title");
  if (props.withdrawn) return false;

  let code: string | undefined;
  let codeField = `${pointer}/id`;
  if (props.label) {
    codeField = props.label.field;
    code = readLine(props.label.value, codeField, REQUIREMENT_CODE_MAX_LENGTH, issues, "control's label");
  } else if (idIsToken) {
    code = id.toUpperCase();
    if (code.length > REQUIREMENT_CODE_MAX_LENGTH) {
      issues.add(
        codeField,
        `is the requirement's code when there is no label, and is longer than ${REQUIREMENT_CODE_MAX_LENGTH} characters; give the control a label`,
      );
      code = undefined;
    }
  }
  if (code !== undefined && seen.codes.has(code)) {
    issues.add(codeField, `makes the code "${code}", as ${seen.codes.get(code)} does; each requirement's code must be unique`);
  } else if (code !== undefined) seen.codes.set(code, codeField);

  if (idIsToken && code !== undefined && title !== undefined) seen.requirements.push({ key: id, code, name: title });
  return true;
}

/** Every control under the catalog, depth first in document order (children pushed in reverse). */
function readRequirements(catalog: Json, issues: Issues): ProgramRequirement[] {
  const seen: Seen = { controlIds: new Map(), codes: new Map(), requirements: [] };
  const stack = children(catalog, '/catalog', 0, issues).reverse();
  while (stack.length > 0) {
    const { node, pointer, kind, depth } = stack.pop()!;
    if (!isObject(node)) {
      issues.add(pointer, `must be an object (a ${kind})`);
      continue;
    }
    const props = readProps(node, pointer, issues);
    const goOn = kind === 'control' ? readControl(node, pointer, props, seen, issues) : !props.withdrawn;
    if (seen.requirements.length > FRAMEWORK_REQUIREMENTS_MAX) {
      issues.add(
        '/catalog',
        `has more than ${FRAMEWORK_REQUIREMENTS_MAX} controls and enhancements (withdrawn ones not counted); split it into several frameworks`,
      );
      break;
    }
    if (!goOn) continue;
    const below = children(node, pointer, depth, issues);
    for (let i = below.length - 1; i >= 0; i--) stack.push(below[i]);
  }
  return seen.requirements;
}

function walk(document: unknown, options: CatalogImportOptions, issues: Issues): ProgramFramework | undefined {
  const catalog = readCatalog(document, issues);
  if (!catalog) return undefined;
  const { key, name } = readHeader(catalog, options, issues);
  const requirements = readRequirements(catalog, issues);
  if (issues.list.length > 0 || key === undefined || name === undefined) return undefined;
  return { key, name, requirements };
}

/**
 * The framework an OSCAL catalog describes. Throws `validation_failed` listing every problem found
 * (at most CATALOG_ISSUES_MAX) when the document is not a catalog this service can read.
 */
export function frameworkFromCatalog(document: unknown, options: CatalogImportOptions = {}): ProgramFramework {
  const issues = new Issues();
  let framework: ProgramFramework | undefined;
  try {
    framework = walk(document, options, issues);
  } catch (error) {
    if (!(error instanceof EnoughIssues)) throw error;
  }
  if (framework) return framework;
  const count = issues.list.length;
  const summary = count >= CATALOG_ISSUES_MAX ? `the first ${count} problems found` : count === 1 ? '1 problem' : `${count} problems`;
  throw validationFailed(issues.list, `The OSCAL catalog is invalid (${summary}, listed in details).`);
}
