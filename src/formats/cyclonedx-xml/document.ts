// A CycloneDX XML file read into an element tree, refusing what is not a well-formed XML document
// with its place as line and column: a DOCTYPE is refused outright (no entity of the file's own is
// ever declared or expanded, so no external entity is fetched and no entity grows into gigabytes),
// the document is validated whole before it is parsed (fast-xml-parser's XMLValidator names the
// line and column of the first problem), and it must have one root element.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { validationFailed } from '../../shared/errors.ts';
import { MAX_DEPTH } from '../scanners/json-stream.ts';

/** An element as the parser gives it: text, or its attributes (`@name`), text (`#text`) and children (always lists). */
export type XmlNode = string | { [key: string]: unknown };

export interface XmlDocument {
  /** the root element's name as written (`bom`, `cdx:bom`) */
  name: string;
  root: XmlNode;
  /** where the root element starts in the text */
  at: number;
}

/** `{ line, column }` of the character at `index` (both from 1). */
function lineColumn(text: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: index - lineStart + 1 };
}

/** The one way an XML file is refused at a place: `validation_failed` naming its line and column. */
export function xmlError(message: string, place: { line: number; column: number }) {
  const { line, column } = place;
  return validationFailed(
    [{ field: '', message: `${message} (line ${line}, column ${column})`, line, column }],
    'The file could not be read.',
  );
}

export const xmlErrorAt = (text: string, index: number, message: string) => xmlError(message, lineColumn(text, index));

/** Where the root element starts, past the XML declaration, comments and processing instructions; refuses a DOCTYPE. */
function rootStart(text: string): number {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i] as string)) i += 1;
    const end = (close: string) => text.indexOf(close, i);
    if (text.startsWith('<?', i) && end('?>') !== -1) i = end('?>') + 2;
    else if (text.startsWith('<!--', i) && end('-->') !== -1) i = end('-->') + 3;
    else if (text.slice(i, i + 9).toUpperCase() === '<!DOCTYPE')
      throw xmlErrorAt(
        text,
        i,
        'expected no DOCTYPE: a CycloneDX XML BOM needs none, and one is refused so that no entity is declared, expanded or fetched',
      );
    else return i;
  }
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // XML's own entities (&amp; …) and character references (&#233;); there is no DOCTYPE to declare others.
  processEntities: true,
  htmlEntities: true,
  // Every element a list, so that one element and several read alike.
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
  // Deeper nesting than any BOM has, as the JSON reader bounds it (../scanners/json-stream.ts).
  maxNestedTags: MAX_DEPTH,
});

/** The text as one XML document: its root element, or a refusal naming the line and column. */
export function readXml(text: string): XmlDocument {
  const at = rootStart(text);
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw xmlError(`expected well-formed XML: ${msg.replace(/\.$/, '')}`, { line, column: col || 1 });
  }
  let tree: Record<string, unknown>;
  try {
    tree = parser.parse(text) as Record<string, unknown>;
  } catch (error) {
    // What the validator lets through and the parser does not: nesting beyond the bound, an element
    // named like a property of every JavaScript object (`__proto__`).
    const message = error instanceof Error ? error.message : String(error);
    const what = /nested tags/i.test(message) ? `at most ${MAX_DEPTH} levels of nesting` : `a CycloneDX XML BOM (${message})`;
    throw xmlErrorAt(text, at, `expected ${what}`);
  }
  const roots = Object.entries(tree).filter(([name]) => !name.startsWith('?'));
  const [first] = roots;
  const elements = first && Array.isArray(first[1]) ? first[1] : [];
  if (roots.length !== 1 || elements.length !== 1 || !first)
    throw xmlErrorAt(text, at, `expected one root element, found ${roots.reduce((n, [, v]) => n + (Array.isArray(v) ? v.length : 1), 0)}`);
  return { name: first[0], root: elements[0] as XmlNode, at };
}
