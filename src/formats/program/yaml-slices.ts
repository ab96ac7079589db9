// A long YAML document read a slice of its block lists at a time (issue 36, goal (c): a plan's
// memory). The `yaml` package's syntax tree (CST) and its document tree are many times the text: an
// 8 MiB document of tests with flagged resources was 340 MB of syntax tree and 160 MB of document
// tree, both alive at once, for 15-30 MB of plain data. Here the parser is fed the text a token at
// a time, and whenever the items of a block list (`- …`) it has finished span more than
// `sliceChars` of text, those items are composed, checked and turned into plain data at once
// (`composeSlice`, yaml.ts) and dropped from the syntax tree: what stays in the tree is the
// document's outline and the items not finished yet. When the whole tree has been read it is
// composed as before, and each list gets back, in front of the items left in it, the plain data
// of the items taken out of it (`restoreSlices`).
//
// The same parser and composer read every part, so a document reads to the same data. The
// limits: an anchor (`&name`) or a directive (`%TAG`) stops the slicing for the rest of the text
// (an alias must find its anchor in the same composed tree; a directive changes what follows), and
// only block lists are sliced (a huge map or flow collection is read whole, as before).
import { PROGRAM_MAX_DEPTH } from '../../shared/program-limits.ts';
import { CST, isMap, isScalar, isSeq, Lexer, Parser, type Document, type Node } from 'yaml';

/**
 * Composes and checks a document holding the finished items of a block list (`path` is the list's
 * place, `first` the index of the first of them in it, `depth` its depth): its tree, composed with
 * `keepSourceTokens`, and its plain data.
 */
export type ComposeSlice = (
  slice: CST.Document,
  context: { depth: number; path: Array<string | number>; first: number },
) => { document: Document.Parsed; value: unknown };

type Item = CST.BlockSequence['items'][number];

/** Lists are looked at every `every` tokens and sliced when their finished items span `chars` characters. */
export interface YamlSlicing {
  chars: number;
  every: number;
}

/** About 256 KiB of text at a time, looked for every 4,096 tokens (a few tens of KiB). */
export const YAML_SLICING: YamlSlicing = { chars: 256 * 1024, every: 4096 };

/** The plain data of the items taken out of each list, by the list's syntax token. */
export type SlicedItems = Map<CST.Token, unknown[]>;

const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection']);

/**
 * A map item's key when it is a word that reads as the same string in the plain data (`tests`,
 * `"resources"`): a list is sliced only below keys like these, so its data is found again there.
 */
function plainKey(item: CST.BlockMap['items'][number] | undefined): string | undefined {
  if (!item?.sep || !item.key || item.start.some((t) => t.type === 'tag' || t.type === 'anchor')) return undefined;
  const key = item.key;
  if (key.type === 'scalar' && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key.source) && !/^(null|true|false)$/i.test(key.source)) return key.source;
  if (key.type !== 'single-quoted-scalar' && key.type !== 'double-quoted-scalar') return undefined;
  let failed = false;
  const resolved = CST.resolveAsScalar(key, true, () => {
    failed = true;
  });
  return resolved && !failed ? resolved.value : undefined;
}

const itemStart = (item: Item): number => item.start[0]?.offset ?? item.value?.offset ?? 0;

/**
 * The open block lists of the parser's stack, each with its depth (as checkDepth counts it) and
 * its place (a JSON pointer's segments, made when asked); stops at anything it cannot name (a flow
 * collection, a key that is not a plain word) and below PROGRAM_MAX_DEPTH, which is refused anyway.
 */
function openLists(stack: readonly CST.Token[], sliced: SlicedItems) {
  const lists: Array<{ token: CST.BlockSequence; depth: number; path: () => Array<string | number> }> = [];
  const segments: Array<string | number> = [];
  let depth = 0;
  for (let i = 0; i < stack.length && depth <= PROGRAM_MAX_DEPTH; i++) {
    const token = stack[i];
    const at = segments.length;
    if (token.type === 'block-seq') lists.push({ token, depth, path: () => segments.slice(0, at) });
    if (i + 1 === stack.length) break;
    if (token.type === 'block-seq') {
      segments.push((sliced.get(token)?.length ?? 0) + token.items.length - 1);
    } else if (token.type === 'block-map') {
      const key = plainKey(token.items.at(-1));
      if (key === undefined) break;
      segments.push(key);
    } else if (token.type !== 'document') {
      break;
    }
    if (COLLECTIONS.has(token.type)) depth += 1;
  }
  return lists;
}

/**
 * Parses `text` into its syntax tokens, as `new Parser().parse(text)` does, taking out of the tree
 * the finished items of each block list once they span `slicing.chars`; their plain data is in
 * `sliced`.
 */
export function parseInSlices(
  text: string,
  slicing: YamlSlicing,
  composeSlice: ComposeSlice,
): { tokens: CST.Token[]; sliced: SlicedItems } {
  const parser = new Parser();
  const tokens: CST.Token[] = [];
  const sliced: SlicedItems = new Map();
  let sliceable = true;
  let seen = 0;
  const slice = () => {
    for (const { token, path, depth } of openLists(parser.stack, sliced)) {
      const done = token.items.length - 1;
      if (done < 1 || itemStart(token.items[done]) - itemStart(token.items[0]) < slicing.chars) continue;
      const items = token.items.splice(0, done);
      const before = sliced.get(token) ?? [];
      const document: CST.Document = {
        type: 'document',
        offset: itemStart(items[0]),
        start: [],
        value: { type: 'block-seq', offset: itemStart(items[0]), indent: token.indent, items },
      };
      const composed = composeSlice(document, { depth, path: path(), first: before.length });
      for (const value of restoreSlices(composed.document, composed.value, sliced) as unknown[]) before.push(value);
      sliced.set(token, before);
    }
  };
  for (const lexeme of new Lexer().lex(text)) {
    if (sliceable) {
      const type = CST.tokenType(lexeme);
      if (type === 'anchor' || type === 'directive-line') sliceable = false;
    }
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (sliceable && ++seen % slicing.every === 0) slice();
  }
  for (const token of parser.end()) tokens.push(token);
  return { tokens, sliced };
}

/**
 * Puts the items taken out back in front of their lists in `value`, the plain data of `document`
 * (composed with `keepSourceTokens`, so a list's node names its syntax token).
 */
export function restoreSlices(document: Document.Parsed, value: unknown, sliced: SlicedItems): unknown {
  if (sliced.size === 0) return value;
  const holder = { value };
  const stack: Array<{ node: unknown; parent: Record<string | number, unknown>; key: string | number }> = [
    { node: document.contents, parent: holder, key: 'value' },
  ];
  const restores: Array<() => void> = [];
  while (stack.length > 0) {
    const { node, parent, key } = stack.pop()!;
    const data = parent[key];
    if (isMap(node)) {
      for (const pair of node.items) {
        if (isScalar(pair.key)) stack.push({ node: pair.value, parent: data as Record<string, unknown>, key: String(pair.key.value) });
      }
    } else if (isSeq(node)) {
      for (const [i, item] of node.items.entries()) stack.push({ node: item, parent: data as Record<number, unknown>, key: i });
      const token = (node as Node & { srcToken?: CST.Token }).srcToken;
      const front = token && sliced.get(token);
      if (front) {
        if (!Array.isArray(data)) throw new Error('a sliced YAML list was not found again in its document');
        // after the walk (the items' places are their indexes before the front is put back), the
        // lists inside a list before it
        restores.push(() => {
          for (const item of data) front.push(item);
          parent[key] = front;
          sliced.delete(token);
        });
      }
    }
  }
  for (const restore of restores.reverse()) restore();
  return holder.value;
}
