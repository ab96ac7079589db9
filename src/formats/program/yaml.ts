// A program document written as YAML (YAML 1.2, core schema: `2026-01-01` stays a string). The
// `yaml` package parses the text into a syntax tree without recursion; that tree's depth is bounded
// here, iteratively, before the recursive composer sees it. Then the document is plain data or it
// is refused: no explicit tags other than the core ones (`!!str`, `!!int`…), no keys that are lists
// or maps, no `__proto__` key, numbers finite and exact, aliases expanded at most
// PROGRAM_MAX_ALIAS_COUNT times (an alias bomb is refused at once), one YAML document per file.
import { Composer, isAlias, isMap, isPair, isScalar, isSeq, Parser, type CST, type Document, type Node, type ParsedNode } from 'yaml';
import { numberIssue, TextRefused } from './json.ts';
import { parseInSlices, restoreSlices, YAML_SLICING, type ComposeSlice, type YamlSlicing } from './yaml-slices.ts';
import { PROGRAM_MAX_ALIAS_COUNT, PROGRAM_MAX_DEPTH, pointerOf } from '../../shared/program-limits.ts';

const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

/**
 * Depth of the syntax tree's collections, walked with a stack: throws past PROGRAM_MAX_DEPTH. The
 * tokens' top is at `depth` (a slice of a list: yaml-slices.ts).
 */
function checkDepth(tokens: CST.Token[], depth = 0): void {
  const stack: Array<{ token: CST.Token | undefined; depth: number }> = tokens.map((token) => ({ token, depth }));
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (token === undefined) continue;
    if (token.type === 'document') stack.push({ token: token.value, depth });
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth >= PROGRAM_MAX_DEPTH) {
        throw new TextRefused({
          pointer: '',
          index: token.offset,
          message: `is nested more than ${PROGRAM_MAX_DEPTH} levels deep; a program document needs far fewer`,
        });
      }
      for (const item of token.items) {
        const entry = item as { key?: CST.Token | null; value?: CST.Token };
        if (entry.key) stack.push({ token: entry.key, depth: depth + 1 });
        if (entry.value) stack.push({ token: entry.value, depth: depth + 1 });
      }
    }
  }
}

export interface ParsedYaml {
  value: unknown;
  document: Document.Parsed;
}

const composeOptions = (keepSourceTokens: boolean) =>
  ({ schema: 'core', uniqueKeys: true, strict: true, prettyErrors: false, merge: false, keepSourceTokens }) as const;

/** The composed document of `tokens` (one at most), or a refusal of its first error. */
function composed(tokens: CST.Token[], end: number, keepSourceTokens: boolean): Document.Parsed | undefined {
  const documents = Array.from(new Composer(composeOptions(keepSourceTokens)).compose(tokens, true, end));
  if (documents.length > 1) {
    throw new TextRefused({
      pointer: '',
      index: documents[1].range[0],
      message: 'holds more than one YAML document (`---`); put each in a file of its own in a folder',
    });
  }
  const document = documents[0] as Document.Parsed | undefined;
  const error = document?.errors[0];
  if (error) {
    const first = error.message.split(' at line ')[0].replace(/\.$/, '');
    throw new TextRefused({ pointer: '', index: error.pos[0], message: `is not valid YAML: ${first}` });
  }
  return document;
}

function plainValue(document: Document.Parsed): unknown {
  try {
    return document.toJS({ maxAliasCount: PROGRAM_MAX_ALIAS_COUNT });
  } catch (err) {
    if (err instanceof ReferenceError || /alias/i.test((err as Error).message)) {
      throw new TextRefused({
        pointer: '',
        index: 0,
        message: `expands its YAML aliases (\`*name\`) too many times (more than ${PROGRAM_MAX_ALIAS_COUNT} per anchor); write the data out`,
      });
    }
    throw err;
  }
}

/**
 * YAML text → its document (for places) and its plain value. Throws TextRefused. Without
 * `keepDocument`, long block lists are read a slice at a time (yaml-slices.ts), so the syntax
 * tree and the document tree of the whole text are never held at once (`slicing`: its tests).
 */
export function parseYamlText(
  text: string,
  options: { keepDocument: boolean; slicing?: YamlSlicing } = { keepDocument: false },
): ParsedYaml {
  if (options.keepDocument) {
    const tokens = Array.from(new Parser().parse(text));
    checkDepth(tokens);
    const document = composed(tokens, text.length, false);
    if (document === undefined) return { value: null, document: undefined as never };
    checkPlainData(document);
    return { value: plainValue(document), document };
  }
  const composeSlice: ComposeSlice = (slice, { depth, path, first }) => {
    checkDepth([slice], depth);
    const document = composed([slice], text.length, true)!;
    checkPlainData(document, { path, first });
    return { document, value: plainValue(document) };
  };
  const { tokens, sliced } = parseInSlices(text, options.slicing ?? YAML_SLICING, composeSlice);
  checkDepth(tokens);
  const document = composed(tokens, text.length, sliced.size > 0);
  if (document === undefined) return { value: null, document: undefined as never };
  checkPlainData(document);
  return { value: restoreSlices(document, plainValue(document), sliced), document: undefined as never };
}

/**
 * Tags, keys and numbers, walked with a stack (the depth is already bounded). `slice`: the document
 * is a list's items from the `first`, and `path` is the list's place (yaml-slices.ts).
 */
function checkPlainData(document: Document.Parsed, slice?: { path: Array<string | number>; first: number }): void {
  const stack: Array<{ node: unknown; path: Array<string | number> }> =
    slice && isSeq(document.contents)
      ? document.contents.items.map((node, i) => ({ node, path: [...slice.path, slice.first + i] }))
      : [{ node: document.contents, path: [] }];
  const refuse = (node: { range?: [number, number, number] | null }, path: Array<string | number>, message: string): never => {
    throw new TextRefused({ pointer: pointerOf(path), index: node.range?.[0] ?? 0, message });
  };
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (node === null || node === undefined || isAlias(node)) continue;
    const tagged = node as Node & { tag?: string };
    if (tagged.tag !== undefined && !CORE_TAGS.has(tagged.tag)) {
      refuse(tagged as ParsedNode, path, `has the YAML tag \`${tagged.tag}\`; a program document holds plain data only: remove the tag`);
    }
    if (isScalar(node)) {
      if (typeof node.value === 'number') {
        const source = (node as { source?: string }).source ?? String(node.value);
        const issue = numberIssue(/^[-+]?\d+$/.test(source) ? source : String(node.value));
        if (issue) refuse(node as ParsedNode, path, issue);
      } else if (typeof node.value === 'bigint' || (typeof node.value === 'object' && node.value !== null)) {
        refuse(node as ParsedNode, path, 'is not plain data (a string, number, true, false or null)');
      }
    } else if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key;
        if (!isScalar(key)) {
          refuse((key ?? node) as ParsedNode, path, 'has a key that is a list or a map; keys are plain words');
        }
        const name = String((key as { value: unknown }).value);
        if (name === '__proto__') refuse(key as ParsedNode, [...path, name], 'is a key named `__proto__`, which is not allowed');
        stack.push({ node: pair.value, path: [...path, name] });
      }
    } else if (isSeq(node)) {
      for (const [i, item] of node.items.entries()) stack.push({ node: item, path: [...path, i] });
    }
  }
}

/**
 * Where a JSON pointer is in a YAML document: the index of the member's key (for a map entry) or of
 * the item (for a list item), following the pointer as far as it exists (through aliases).
 */
export function locateInYaml(document: Document.Parsed, segments: string[]): number {
  let node: unknown = document.contents;
  let found = (node as ParsedNode | null)?.range?.[0] ?? 0;
  for (const segment of segments) {
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === segment);
      if (!pair) return found;
      found = (pair.key as ParsedNode).range?.[0] ?? found;
      node = pair.value;
    } else if (isSeq(node)) {
      const item = /^\d+$/.test(segment) ? node.items[Number(segment)] : undefined;
      if (item === undefined) return found;
      found = (item as ParsedNode).range?.[0] ?? found;
      node = item;
    } else {
      return found;
    }
  }
  return found;
}
