// A push parser for multipart/form-data (RFC 7578 over RFC 2046 §5.1.1): bytes go in with
// write() in chunks of any size, parts come out through the sink as they are found. The body of a
// part is handed over as views into the chunks written, never copied, and the search for the
// delimiter is Buffer.indexOf (native code), so a large file costs one scan and no garbage of its
// own; the only bytes kept between chunks are a part's headers (bounded) and how much of the
// delimiter the previous chunk ended with (a count: those bytes are the delimiter's own).
// Anything that is not a well-formed body (a part whose headers cannot be read, a delimiter line
// with trailing bytes, a body that ends before the closing delimiter) throws MultipartError.

/** A body this parser cannot read; the message says what, for the person who sent it. */
export class MultipartError extends Error {}

export interface PartHeaders {
  /** the `name` parameter of Content-Disposition ('' when absent) */
  name: string;
  /** the file name (`filename*` before `filename`), its last path segment; undefined for a field */
  filename: string | undefined;
  /** the part's media type, lower case (text/plain by default) */
  contentType: string;
  /** the `charset` parameter of the part's Content-Type, lower case (utf-8 by default) */
  charset: string;
}

export interface PartSink {
  partStart(headers: PartHeaders): void;
  /** bytes of the current part: a view into a written chunk (or into the delimiter's own bytes) */
  partData(data: Buffer): void;
  partEnd(): void;
}

/** The most bytes of headers one part may have (Node's own limit for an HTTP request's head). */
export const MAX_PART_HEADER_BYTES = 16 * 1024;
/** The most header lines one part may have. */
export const MAX_PART_HEADER_LINES = 20;

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const SPACE = 0x20;
const TAB = 0x09;
const END_OF_HEADERS = Buffer.from('\r\n\r\n');

/** RFC 2046: 1 to 70 characters; this parser needs only that none is a control character. */
export function validBoundary(boundary: string): boolean {
  return /^[\x20-\x7e]{1,70}$/.test(boundary) && !boundary.endsWith(' ');
}

type State = 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'epilogue';
/** Within the line after a delimiter: at its start, after one '-', in transport padding, after CR. */
type AfterDelimiter = 'start' | 'dash' | 'padding' | 'cr';

export class MultipartParser {
  private readonly delimiter: Buffer;
  private state: State = 'preamble';
  private after: AfterDelimiter = 'start';
  private padding = 0;
  /**
   * How many bytes of the delimiter the data seen so far ended with (not yet known to be body).
   * The body may begin with the first delimiter at once, without the CRLF before it: the parser
   * starts as if it had just seen that CRLF.
   */
  private matched = 2;
  private head: Buffer = Buffer.alloc(0);

  private readonly sink: PartSink;

  constructor(boundary: string, sink: PartSink) {
    this.sink = sink;
    if (!validBoundary(boundary)) throw new MultipartError('the boundary must be 1 to 70 printable characters');
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  /** Parses `chunk`, calling the sink for what it completes. Throws MultipartError. */
  write(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      switch (this.state) {
        case 'preamble':
        case 'body':
        case 'epilogue':
          if (this.state === 'epilogue') return; // ignored, whatever it holds
          pos = this.scan(chunk, pos);
          break;
        case 'after-delimiter':
          pos = this.afterDelimiter(chunk, pos);
          break;
        case 'headers':
          pos = this.headers(chunk, pos);
          break;
      }
    }
  }

  /** The body is over: it must have ended with the closing delimiter. */
  end(): void {
    if (this.state !== 'epilogue') throw new MultipartError('the body ended before its closing boundary');
  }

  /** Body (or preamble) bytes up to the next delimiter; returns where parsing goes on. */
  private scan(chunk: Buffer, pos: number): number {
    const d = this.delimiter;
    if (this.matched > 0) {
      // The previous chunk ended with the first `matched` bytes of the delimiter: does this one go on with the rest?
      const n = Math.min(d.length - this.matched, chunk.length - pos);
      if (chunk.compare(d, this.matched, this.matched + n, pos, pos + n) === 0) {
        this.matched += n;
        if (this.matched < d.length) return chunk.length;
        this.matched = 0;
        this.delimiterFound();
        return pos + n;
      }
      // They were data. A boundary holds no CR, so no later byte of them can begin a delimiter.
      this.data(d.subarray(0, this.matched));
      this.matched = 0;
    }
    const at = chunk.indexOf(d, pos);
    if (at >= 0) {
      if (at > pos) this.data(chunk.subarray(pos, at));
      this.delimiterFound();
      return at + d.length;
    }
    // Keep back the longest end of the chunk that begins the delimiter (it starts with the only CR in it).
    let keep = 0;
    for (let i = Math.max(pos, chunk.length - d.length + 1); i < chunk.length; i++) {
      if (chunk[i] === CR && chunk.compare(d, 0, chunk.length - i, i, chunk.length) === 0) {
        keep = chunk.length - i;
        break;
      }
    }
    if (chunk.length - keep > pos) this.data(chunk.subarray(pos, chunk.length - keep));
    this.matched = keep;
    return chunk.length;
  }

  private data(bytes: Buffer): void {
    if (this.state === 'body') this.sink.partData(bytes);
  }

  private delimiterFound(): void {
    if (this.state === 'body') this.sink.partEnd();
    this.state = 'after-delimiter';
    this.after = 'start';
    this.padding = 0;
  }

  /** `--` (the closing delimiter) or optional transport padding and CRLF (a part follows). */
  private afterDelimiter(chunk: Buffer, pos: number): number {
    while (pos < chunk.length) {
      const byte = chunk[pos++];
      switch (this.after) {
        case 'start':
          if (byte === DASH) this.after = 'dash';
          else if (byte === CR) this.after = 'cr';
          else if (byte === SPACE || byte === TAB) this.after = 'padding';
          else throw new MultipartError('a boundary line has unexpected bytes after the boundary');
          break;
        case 'dash':
          if (byte !== DASH) throw new MultipartError('a boundary line has unexpected bytes after the boundary');
          this.state = 'epilogue';
          return pos;
        case 'padding':
          if (byte === CR) this.after = 'cr';
          else if ((byte !== SPACE && byte !== TAB) || ++this.padding > MAX_PART_HEADER_BYTES)
            throw new MultipartError('a boundary line has unexpected bytes after the boundary');
          break;
        case 'cr':
          if (byte !== LF) throw new MultipartError('a boundary line does not end with CRLF');
          this.state = 'headers';
          this.head = Buffer.alloc(0);
          return pos;
      }
    }
    return pos;
  }

  /** A part's header lines, up to the empty line that ends them. */
  private headers(chunk: Buffer, pos: number): number {
    // The line before them ended with CRLF: headers end at the first CRLF CRLF of CRLF + headers.
    const room = MAX_PART_HEADER_BYTES + 2 - this.head.length;
    const piece = chunk.subarray(pos, Math.min(chunk.length, pos + room));
    const text = Buffer.concat([Buffer.from('\r\n'), this.head, piece]);
    const end = text.indexOf(END_OF_HEADERS, Math.max(0, this.head.length - 1));
    if (end < 0) {
      if (piece.length === room) throw new MultipartError(`the headers of a part are longer than ${MAX_PART_HEADER_BYTES} bytes`);
      this.head = text.subarray(2);
      return chunk.length;
    }
    const consumed = end + END_OF_HEADERS.length - 2 - this.head.length;
    const block = text.subarray(2, Math.max(2, end));
    this.head = Buffer.alloc(0);
    this.sink.partStart(parsePartHeaders(block));
    this.state = 'body';
    return pos + consumed;
  }
}

/** The header lines of a part (UTF-8, as browsers send file names) → what the part is. */
export function parsePartHeaders(block: Buffer): PartHeaders {
  const lines = block.length === 0 ? [] : block.toString('utf8').split('\r\n');
  const fields = new Map<string, string>();
  let count = 0;
  let last: string | undefined;
  for (const line of lines) {
    if (!/^[\t\x20-\x7e\u0080-\uffff]*$/.test(line)) throw new MultipartError('a part header holds a control character');
    if ((line.startsWith(' ') || line.startsWith('\t')) && last !== undefined) {
      // An obsolete folded line continues the previous header (RFC 5322 §3.2.2).
      fields.set(last, `${fields.get(last)} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    const name = line.slice(0, Math.max(0, colon)).toLowerCase();
    if (!TOKEN.test(name)) throw new MultipartError('a part header is not "Name: value"');
    if (++count > MAX_PART_HEADER_LINES) throw new MultipartError(`a part has more than ${MAX_PART_HEADER_LINES} headers`);
    if (!fields.has(name)) fields.set(name, line.slice(colon + 1).trim());
    last = name;
  }
  const disposition = fields.get('content-disposition');
  if (disposition === undefined) throw new MultipartError('a part has no Content-Disposition header');
  const parsed = parseHeaderValue(disposition);
  if (parsed?.value !== 'form-data') throw new MultipartError('a part’s Content-Disposition is not a readable form-data disposition');
  const rawName = parsed.params.get('filename*') ?? parsed.params.get('filename');
  let contentType = 'text/plain';
  let charset = 'utf-8';
  const typeHeader = fields.get('content-type');
  if (typeHeader !== undefined) {
    const type = parseHeaderValue(typeHeader);
    if (!type || !/^[^/]+\/[^/]+$/.test(type.value)) throw new MultipartError('a part’s Content-Type is not a readable media type');
    contentType = type.value;
    charset = type.params.get('charset')?.toLowerCase() ?? charset;
  }
  return { name: parsed.params.get('name') ?? '', filename: rawName === undefined ? undefined : basename(rawName), contentType, charset };
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TOKEN_CHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

/**
 * `value; name=token; name="quoted"; name*=charset'lang'percent-encoded` (RFC 7231 §3.1.1.1,
 * RFC 5987) with lower-cased value and parameter names; the first of a repeated parameter counts.
 * Undefined when it cannot be read as that.
 */
export function parseHeaderValue(header: string): { value: string; params: Map<string, string> } | undefined {
  let i = 0;
  const skipSpace = () => {
    while (header[i] === ' ' || header[i] === '\t') i++;
  };
  const token = () => {
    const start = i;
    while (i < header.length && (TOKEN_CHAR.test(header[i]) || header[i] === '/')) i++;
    return header.slice(start, i);
  };
  const value = token().toLowerCase();
  if (value === '') return undefined;
  const params = new Map<string, string>();
  for (;;) {
    skipSpace();
    if (i >= header.length) return { value, params };
    if (header[i++] !== ';') return undefined;
    skipSpace();
    if (i >= header.length) return { value, params }; // a trailing ';'
    const start = i;
    while (i < header.length && TOKEN_CHAR.test(header[i])) i++;
    const name = header.slice(start, i).toLowerCase();
    if (name === '' || header[i++] !== '=') return undefined;
    let paramValue: string | undefined;
    if (header[i] === '"') {
      i++;
      let text = '';
      for (;;) {
        if (i >= header.length) return undefined; // no closing quote
        const c = header[i++];
        if (c === '"') break;
        // A backslash escapes only a quote or a backslash: browsers send Windows paths unescaped.
        if (c === '\\' && (header[i] === '"' || header[i] === '\\')) text += header[i++];
        else text += c;
      }
      paramValue = text;
    } else {
      const start = i;
      while (i < header.length && TOKEN_CHAR.test(header[i])) i++;
      paramValue = header.slice(start, i);
      if (paramValue === '') return undefined;
    }
    if (name.endsWith('*')) {
      paramValue = decodeExtValue(paramValue);
      if (paramValue === undefined) return undefined;
    }
    if (!params.has(name)) params.set(name, paramValue);
  }
}

/** RFC 5987 ext-value: charset'language'percent-encoded bytes. */
function decodeExtValue(text: string): string | undefined {
  const match = /^([^']*)'[^']*'(.*)$/.exec(text);
  if (!match || !/^(?:[^%]|%[0-9A-Fa-f]{2})*$/.test(match[2])) return undefined;
  const bytes = Buffer.from(
    match[2].replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  );
  try {
    return new TextDecoder(match[1] || 'utf-8').decode(bytes);
  } catch {
    return undefined; // a charset this runtime does not know
  }
}

/** The last segment of a path a client sent as the file name ('.' and '..' name nothing). */
function basename(filename: string): string {
  const last = filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
  return last === '.' || last === '..' ? '' : last;
}
