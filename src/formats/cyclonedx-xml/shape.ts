// A CycloneDX XML element tree (./document.ts) turned into the shape of the JSON encoding, which
// the shared mapping reads (../cyclonedx/bom.ts): attributes become members (`bom-ref`, `type`),
// an element of text its text, and a wrapper of repeated elements a list (`<components>` of
// `<component>` → `components: [...]`, `<affects>` of `<target>` → `affects: [...]`). Names are
// the schema's own (bom-1.4.xsd to bom-1.6.xsd), and where the JSON encoding names a member
// otherwise it is renamed (`<responses>` → `response`). Elements and attributes of other
// namespaces (the schema allows extensions there) are left out.
import type { XmlNode } from './document.ts';

/** The wrappers of a list, and the element each item is. */
const LISTS: Readonly<Record<string, string>> = {
  components: 'component',
  vulnerabilities: 'vulnerability',
  references: 'reference',
  ratings: 'rating',
  cwes: 'cwe',
  advisories: 'advisory',
  affects: 'target',
  versions: 'version',
  responses: 'response',
  properties: 'property',
};

/** Members the JSON encoding names otherwise than the XML element. */
const JSON_NAMES: Readonly<Record<string, string>> = { responses: 'response' };

const isNode = (value: unknown): value is { [key: string]: unknown } => typeof value === 'object' && value !== null;
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * The element's name without its namespace prefix, when it is in the BOM's namespace (written with
 * the root's prefix, or without one when the root has none); undefined for another namespace's.
 */
function localName(name: string, prefix: string): string | undefined {
  const colon = name.indexOf(':');
  if (prefix === '') return colon === -1 ? name : undefined;
  return colon !== -1 && name.slice(0, colon) === prefix ? name.slice(colon + 1) : undefined;
}

/** The element `name` (its local name) in the JSON encoding's shape; `prefix` is the root's namespace prefix. */
export function jsonShape(node: XmlNode, name: string, prefix: string): unknown {
  const item = LISTS[name];
  if (typeof node === 'string') return item ? [] : node;
  if (item) {
    const items = Object.entries(node).filter(([key]) => localName(key, prefix) === item);
    return items.flatMap(([, value]) => listOf(value).map((v) => jsonShape(v as XmlNode, item, prefix)));
  }
  const out: Record<string, unknown> = {};
  let children = 0;
  for (const [key, value] of Object.entries(node)) {
    if (key === '#text') continue;
    if (key.startsWith('@')) {
      // An attribute in no namespace is the schema's (`bom-ref`, `type`); `xmlns…` and prefixed ones are not.
      const attribute = key.slice(1);
      if (!attribute.includes(':') && attribute !== 'xmlns') out[attribute] = value;
      continue;
    }
    const local = localName(key, prefix);
    if (local === undefined) continue;
    children += 1;
    const shaped = listOf(value).map((v) => jsonShape(v as XmlNode, local, prefix));
    out[JSON_NAMES[local] ?? local] = shaped.length === 1 ? shaped[0] : shaped;
  }
  // Text with attributes (`<hash alg="SHA-256">…</hash>`) is its text: the mapping reads no such attribute.
  const text = node['#text'];
  if (children === 0 && text !== undefined) return isNode(text) ? '' : String(text);
  return out;
}
