// A JSON document read as a stream: only the parts a format asks for are built into values, the
// rest is tokenized and dropped, so memory follows the largest part asked for, not the file.
// @streamparser/json's Tokenizer does the byte-level work (UTF-8 split across chunks, escapes,
// numbers); this file keeps the grammar and the path, so that every error names its place as a
// JSON pointer (RFC 6901).
import { Tokenizer, TokenType } from '@streamparser/json';
import { ServiceError, validationFailed } from '../../shared/errors.ts';

export type PathPart = string | number;
export type ValueKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';
/**
 * What to do with the value at a path: `emit` builds it and hands it over whole, `walk` goes into
 * it (its members are asked about in turn), `skip` reads past it without keeping anything.
 */
export type Plan = 'emit' | 'walk' | 'skip';

export interface StreamPlan {
  /** Asked for every value outside an emitted one; may throw a validation error (a wrong shape). */
  plan(path: readonly PathPart[], kind: ValueKind): Plan;
  /** Asked for the members of an emitted value: true leaves that member out (a part nobody reads). */
  prune?(path: readonly PathPart[]): boolean;
}

export interface Emitted {
  path: PathPart[];
  value: unknown;
}

export type ByteChunks = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** Deeper nesting than any scanner writes; a guard against a file built to exhaust the stack. */
export const MAX_DEPTH = 64;

/** `['runs', 0, 'results']` → `/runs/0/results` (RFC 6901; the whole document is `""`). */
export function pointer(path: readonly PathPart[]): string {
  return path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** The one way a file is refused: `validation_failed` naming the place and what was expected. */
export function fileError(path: readonly PathPart[], message: string) {
  return validationFailed([{ field: pointer(path), message }], 'The file could not be read.');
}

/** Walks into a container of the kind a format requires there; refuses any other with `what`. */
export function walkInto(path: readonly PathPart[], kind: ValueKind, required: 'object' | 'array', what: string): Plan {
  if (kind !== required) throw fileError(path, `expected ${what}`);
  return 'walk';
}

// A container being read. `mode` says whether it is built (`build`) or only walked through.
interface Frame {
  kind: 'object' | 'array';
  mode: 'build' | 'walk' | 'skip';
  /** The value being built (mode build). */
  value?: Record<string, unknown> | unknown[];
  /** This frame is the root of an emitted value. */
  emitRoot: boolean;
  /** object: the key being read; array: the index of the next item. */
  key: string;
  index: number;
  /** object: key | colon | value | comma; array: value | comma. `first` allows the closing token. */
  expect: 'key' | 'colon' | 'value' | 'comma';
  first: boolean;
}

/** A container's frame: built whole when it is emitted (the root of what is emitted, unless already inside a built one). */
function containerFrame(kind: Frame['kind'], decision: Plan, insideBuild: boolean): Frame {
  const mode = decision === 'emit' ? 'build' : decision;
  return {
    kind,
    mode,
    value: mode === 'build' ? (kind === 'object' ? {} : []) : undefined,
    emitRoot: decision === 'emit' && !insideBuild,
    key: '',
    index: 0,
    expect: kind === 'object' ? 'key' : 'value',
    first: true,
  };
}

function kindOf(token: TokenType): ValueKind | undefined {
  switch (token) {
    case TokenType.LEFT_BRACE:
      return 'object';
    case TokenType.LEFT_BRACKET:
      return 'array';
    case TokenType.TRUE:
    case TokenType.FALSE:
      return 'boolean';
    case TokenType.NULL:
      return 'null';
    case TokenType.STRING:
      return 'string';
    case TokenType.NUMBER:
      return 'number';
    default:
      return undefined;
  }
}

function describe(token: TokenType, value: unknown): string {
  if (token === TokenType.STRING) return 'text';
  if (token === TokenType.NUMBER) return 'a number';
  return `“${String(value)}”`;
}

/**
 * A chunk of the file is tokenized synchronously: a 64 KiB one held the event loop 10-20 ms (issue
 * 36), so it is fed in pieces of at most this many bytes, its findings handed on after each (the
 * reader gives the loop its turns between them). The tokenizer takes a character cut between two.
 */
const PIECE_BYTES = 16 * 1024;

function* pieces(chunk: Uint8Array | string): Generator<Uint8Array | string> {
  if (typeof chunk === 'string' || chunk.length <= PIECE_BYTES) {
    yield chunk;
    return;
  }
  for (let at = 0; at < chunk.length; at += PIECE_BYTES) yield chunk.subarray(at, at + PIECE_BYTES);
}

/** The file's error for what the tokenizer threw (a ServiceError of the plan passes as it is). */
function tokenizerError(error: unknown, { ended, started, path }: { ended: boolean; started: boolean; path: PathPart[] }): Error {
  if (error instanceof ServiceError) return error;
  if (ended) return fileError(path, 'expected more: the file ends in the middle of a value (is it cut short?)');
  // The tokenizer says `Unexpected "x" at chunk position "3" (absolute position "1027") in state …`.
  const text = error instanceof Error ? error.message : String(error);
  const at = /Unexpected "(.*)" at chunk position "\d+" \(absolute position "(\d+)"\)/s.exec(text);
  if (!started && at?.[1] === '<')
    return fileError([], 'expected JSON, but the file starts with “<” (XML?): scanner files are read as JSON');
  const detail = at ? `unexpected “${at[1]}” at byte ${at[2]}` : text.replace(/ in state \w+$/, '').replace(/\(state: \w+\)\. /, '');
  return fileError(path, `expected valid JSON (${detail})`);
}

function* drain(out: Emitted[]) {
  const batch = out.splice(0);
  for (const item of batch) yield item;
}

/**
 * Reads `chunks` as one JSON document and yields the values `plan` asks for, in document order.
 * Throws `validation_failed` with the JSON pointer of the first problem; nothing is yielded after
 * it.
 */
export async function* streamJson(chunks: ByteChunks, plan: StreamPlan): AsyncGenerator<Emitted> {
  const stack: Frame[] = [];
  const out: Emitted[] = [];
  let done = false; // the root value is complete
  let started = false;

  const path = (): PathPart[] => stack.map((f) => (f.kind === 'object' ? f.key : f.index));
  const top = () => stack[stack.length - 1];

  // A value is complete: put it where it belongs.
  const place = (value: unknown, emitted: boolean, where: PathPart[], kept: boolean) => {
    const parent = top();
    if (emitted) out.push({ path: where, value });
    else if (kept && parent?.mode === 'build' && parent.value) {
      if (Array.isArray(parent.value)) parent.value.push(value);
      else parent.value[parent.key] = value;
    }
    if (parent) {
      parent.expect = 'comma';
      parent.first = false;
    } else done = true;
  };

  const startValue = (token: TokenType, value: unknown) => {
    const kind = kindOf(token);
    const parent = top();
    if (!kind) {
      const what = parent?.kind === 'array' && parent.first ? 'a value or “]”' : parent ? 'a value' : 'a JSON value';
      throw fileError(path(), `expected ${what}, found ${describe(token, value)}`);
    }
    const where = path();
    let decision: Plan;
    if (!parent || parent.mode === 'walk') decision = plan.plan(where, kind);
    else if (parent.mode === 'skip') decision = 'skip';
    else decision = plan.prune?.(where) ? 'skip' : 'emit';
    const insideBuild = parent?.mode === 'build';
    if (kind === 'object' || kind === 'array') {
      if (stack.length >= MAX_DEPTH) throw fileError(where, `expected at most ${MAX_DEPTH} levels of nesting`);
      stack.push(containerFrame(kind, decision, insideBuild));
      return;
    }
    place(value, decision === 'emit' && !insideBuild, where, decision === 'emit');
  };

  const endContainer = () => {
    const own = path().slice(0, -1); // a container's place is named by its parents
    const frame = stack.pop() as Frame;
    place(frame.value, frame.emitRoot, own, frame.mode === 'build');
  };

  const onToken = (token: TokenType, value: unknown) => {
    started = true;
    if (done) throw fileError([], `expected the end of the file after the JSON value, found ${describe(token, value)}`);
    const frame = top();
    if (!frame) return startValue(token, value);
    if (frame.kind === 'object') {
      switch (frame.expect) {
        case 'key':
          if (token === TokenType.RIGHT_BRACE && frame.first) return endContainer();
          if (token !== TokenType.STRING)
            throw fileError(path(), `expected a member name in quotes${frame.first ? ' or “}”' : ''}, found ${describe(token, value)}`);
          frame.key = value as string;
          frame.expect = 'colon';
          return;
        case 'colon':
          if (token !== TokenType.COLON) throw fileError(path(), `expected “:” after the member name, found ${describe(token, value)}`);
          frame.expect = 'value';
          return;
        case 'value':
          return startValue(token, value);
        case 'comma':
          if (token === TokenType.RIGHT_BRACE) return endContainer();
          if (token !== TokenType.COMMA) throw fileError(path(), `expected “,” or “}”, found ${describe(token, value)}`);
          frame.expect = 'key';
          return;
      }
    }
    switch (frame.expect) {
      case 'comma':
        if (token === TokenType.RIGHT_BRACKET) return endContainer();
        if (token !== TokenType.COMMA) throw fileError(path(), `expected “,” or “]”, found ${describe(token, value)}`);
        frame.index += 1;
        frame.expect = 'value';
        return;
      default:
        if (token === TokenType.RIGHT_BRACKET && frame.first) return endContainer();
        return startValue(token, value);
    }
  };

  const tokenizer = new Tokenizer();
  tokenizer.onToken = ({ token, value }) => onToken(token, value);
  const write = (chunk: Uint8Array | string | undefined) => {
    try {
      if (chunk === undefined) tokenizer.end();
      else tokenizer.write(chunk);
    } catch (error) {
      throw tokenizerError(error, { ended: chunk === undefined, started, path: path() });
    }
  };

  for await (const chunk of chunks) {
    for (const piece of pieces(chunk)) {
      write(piece);
      yield* drain(out);
    }
  }
  write(undefined);
  yield* drain(out);
  if (!started) throw fileError([], 'expected a JSON document, found an empty file');
  if (!done) throw fileError(path(), 'expected more: the file ends before its JSON value does (is it cut short?)');
}
