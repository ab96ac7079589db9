// CycloneDX 1.4+ XML BOMs with their vulnerabilities (VEX, VDR) → scanned findings, mapped exactly
// as the JSON encoding is (../cyclonedx/bom.ts): the file is read into an element tree
// (./document.ts), turned into the JSON encoding's shape (./shape.ts) and handed part by part to
// the same mapping, so one BOM in either encoding gives the same findings, places included (a
// finding's `at` and a refusal's field are the JSON pointer of the same member in the JSON
// encoding: `/vulnerabilities/0/id` is the first <vulnerability>'s <id>). Mapping:
// docs/scanner-formats.md ("CycloneDX XML").
//
// The file is read whole, not streamed: XML has no streaming reader here that validates, and the
// file is bounded already (IMPORT_MAX_BYTES, counted while the import spools it:
// domain/imports/spool.ts). The counts inside are bounded by the shared mapping
// (MAX_COMPONENTS), the texts by the finding's own bounds (../scanners/finding.ts).
import type { ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { BomMapping, isReadVersion, versionExpected } from '../cyclonedx/bom.ts';
import type { FileTop, FormatReader } from '../scanners/contract.ts';
import { fileError, streamJson, type ByteChunks, type PathPart } from '../scanners/json-stream.ts';
import { isObject } from '../scanners/read.ts';
import { readXml, xmlErrorAt } from './document.ts';
import { jsonShape } from './shape.ts';

const NAMESPACE = /^http:\/\/cyclonedx\.org\/schema\/bom\/(\d+\.\d+)$/;
const LABEL = 'a CycloneDX XML BOM';

/** The whole file as text; bytes that are not UTF-8 are refused. */
async function textOf(chunks: ByteChunks): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(parts));
  } catch {
    throw fileError([], `expected ${LABEL} in UTF-8, but the file has bytes that are not UTF-8`);
  }
}

/**
 * A JSON file sent as this format: refused naming the format it looks like when one of its top-level
 * members is another format's signature (the registry's checks, `top`), otherwise as JSON.
 */
async function refuseJson(text: string, top: FileTop): Promise<never> {
  let looksLike: unknown;
  const plan = (path: readonly PathPart[], kind: string) => {
    if (path.length === 1) {
      try {
        top.plan(path, 'object');
      } catch (error) {
        looksLike = error;
        throw error;
      }
    }
    return path.length === 0 && kind === 'object' ? 'walk' : 'skip';
  };
  try {
    for await (const _ of streamJson([text], { plan })) {
      // only the top-level members are looked at
    }
  } catch {
    // malformed JSON is still not XML
  }
  if (looksLike) throw looksLike;
  throw fileError([], `expected ${LABEL} (an XML document), but the file is JSON: a CycloneDX JSON BOM is sent with format cyclonedx`);
}

/** The root element, checked: <bom> in a CycloneDX namespace of 1.4 or later. Its prefix and version. */
function bomRoot(text: string, name: string, root: unknown, at: number): { prefix: string; version: string } {
  const colon = name.indexOf(':');
  const prefix = colon === -1 ? '' : name.slice(0, colon);
  const local = name.slice(colon + 1);
  if (local !== 'bom') throw xmlErrorAt(text, at, `expected ${LABEL}, whose root element is <bom>; found <${name}>`);
  const namespace = isObject(root) ? root[prefix ? `@xmlns:${prefix}` : '@xmlns'] : undefined;
  const version = typeof namespace === 'string' ? NAMESPACE.exec(namespace.trim())?.[1] : undefined;
  if (!version)
    throw xmlErrorAt(
      text,
      at,
      `expected ${LABEL}: <bom> in the namespace http://cyclonedx.org/schema/bom/1.x, found ${typeof namespace === 'string' ? `“${namespace.slice(0, 80)}”` : 'none'}`,
    );
  if (!isReadVersion(version)) throw xmlErrorAt(text, at, versionExpected(version));
  return { prefix, version };
}

/** Reads a CycloneDX 1.4+ XML BOM; yields its vulnerabilities' findings. */
export const parseCycloneDxXml: FormatReader = async function* (chunks, file, watch) {
  const summary: ScanSummary = { format: 'cyclonedx-xml', tool: 'CycloneDX', findings: 0, skipped: 0 };
  watch?.(summary);
  const text = await textOf(chunks);
  const start = text.search(/\S/);
  if (start === -1) throw fileError([], `expected ${LABEL}, found an empty file`);
  if (text[start] === '{' || text[start] === '[') await refuseJson(text, file);
  if (text[start] !== '<') throw xmlErrorAt(text, start, `expected ${LABEL} (an XML document, starting with “<”), found “${text[start]}”`);
  const { name, root, at } = readXml(text);
  const { prefix } = bomRoot(text, name, root, at);
  const bom = jsonShape(root, 'bom', prefix) as Record<string, unknown>;
  const mapping = new BomMapping(summary);
  if (bom.metadata !== undefined) mapping.metadata(bom.metadata, ['metadata']);
  const list = (key: string) => (Array.isArray(bom[key]) ? (bom[key] as unknown[]) : []);
  for (const [i, component] of list('components').entries()) mapping.component(component, ['components', i]);
  for (const [i, vulnerability] of list('vulnerabilities').entries()) yield* mapping.vulnerability(vulnerability, ['vulnerabilities', i]);
  return summary;
};
