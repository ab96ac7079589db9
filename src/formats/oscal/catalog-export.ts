// A framework and its requirements → an OSCAL catalog that OSCAL's own catalog JSON Schema accepts
// (docs/oscal.md has the rules). Each requirement becomes a control, in the framework's order: its
// code the control's `label` property, its name the title, its id an OSCAL token made from the
// requirement's key (kept as it is when it already is a token) or its code. Importing the export
// (src/formats/oscal/catalog-import.ts) gives back the same codes and names in the same order.
import { RECORD_KEY_MAX_LENGTH } from '../../domain/kinds/fields.ts';
import { OSCAL_TOKEN, OSCAL_VERSION, type OscalCatalogDocument, type OscalControl } from './catalog-shape.ts';
import { URL_NAMESPACE, uuidV5 } from '../../shared/uuid-v5.ts';

/** The namespace of exported catalogs' uuids: a catalog's uuid is uuidV5(this, framework ID). */
export const CATALOG_UUID_NAMESPACE = uuidV5(URL_NAMESPACE, 'urn:compliance-data-service:oscal-catalog');

export interface FrameworkForExport {
  id: string;
  name: string;
  /** In the framework's order. `key` is the requirement's program key when known. */
  requirements: ReadonlyArray<{ key?: string; code: string; name: string }>;
}

export interface CatalogExportOptions {
  /** When the framework last changed (epoch ms): the catalog's `last-modified`. */
  lastModified: number;
  /** The catalog's `version`; by default its `last-modified`, so each change makes a new version. */
  version?: string;
}

/**
 * One line OSCAL accepts as a title or a property value: control and invisible characters (line
 * breaks included) become spaces, then it is NFC and trimmed, as the import reads it.
 */
function line(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, ' ')
    .normalize('NFC')
    .trim();
}

/** Room left for a `-N` suffix, so that even a de-duplicated id stays a valid record key. */
const TOKEN_BASE_MAX_LENGTH = RECORD_KEY_MAX_LENGTH - 8;

/** Any text → an OSCAL token: lower-cased, other characters as `-`, starting with a letter or `_`. */
function tokenFrom(text: string): string {
  const base = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  const token = /^[\p{L}_]/u.test(base) ? base : base === '' ? 'req' : `req-${base}`;
  // Cut by code points, never inside a surrogate pair.
  return Array.from(token)
    .slice(0, TOKEN_BASE_MAX_LENGTH)
    .join('')
    .replace(/[-.]+$/, '');
}

const isToken = (text: string | undefined): text is string =>
  text !== undefined && text.length <= RECORD_KEY_MAX_LENGTH && OSCAL_TOKEN.test(text);

/**
 * The control ids, one per requirement, unique: keys that are already tokens first (so that they
 * survive a round trip), then tokens made from the other keys or codes, with `-2`, `-3`… after an
 * id already taken.
 */
function controlIds(requirements: FrameworkForExport['requirements']): string[] {
  const ids: Array<string | undefined> = requirements.map(() => undefined);
  const taken = new Set<string>();
  requirements.forEach((r, i) => {
    if (isToken(r.key) && !taken.has(r.key)) {
      ids[i] = r.key;
      taken.add(r.key);
    }
  });
  return requirements.map((r, i) => {
    if (ids[i] !== undefined) return ids[i];
    const base = tokenFrom(r.key ?? r.code);
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
    taken.add(id);
    return id;
  });
}

/** OSCAL's date-time with a time zone, to the second (`2026-11-27T04:00:00Z`). */
const oscalDateTime = (epochMs: number) => new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function catalogFromFramework(framework: FrameworkForExport, options: CatalogExportOptions): OscalCatalogDocument {
  const lastModified = oscalDateTime(options.lastModified);
  const ids = controlIds(framework.requirements);
  const controls: OscalControl[] = framework.requirements.map((requirement, i) => {
    const code = line(requirement.code);
    const control: OscalControl = { id: ids[i], title: line(requirement.name) || code || ids[i] };
    if (code !== '') control.props = [{ name: 'label', value: code }];
    return control;
  });
  const catalog: OscalCatalogDocument['catalog'] = {
    uuid: uuidV5(CATALOG_UUID_NAMESPACE, framework.id),
    metadata: {
      title: line(framework.name) || framework.id,
      'last-modified': lastModified,
      version: (options.version !== undefined && line(options.version)) || lastModified,
      'oscal-version': OSCAL_VERSION,
    },
  };
  // OSCAL's schema wants at least one control when `controls` is there.
  if (controls.length > 0) catalog.controls = controls;
  return { catalog };
}
