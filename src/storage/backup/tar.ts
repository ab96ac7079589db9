// The tar (POSIX ustar) format of backup archives, written and read with Node's own code: a
// backup holds only regular files whose names this service chooses, so the whole format needed
// is a 512-byte header per file; a dependency for it would be more code to trust than this file
// (docs/operations.md, "Backup and restore"). Sizes of 8 GiB and more use the base-256 size field
// GNU tar and libarchive read, so `tar -tzf` lists every archive this service writes.

const BLOCK = 512;
/** the largest size the 11 octal digits of the ustar size field hold */
const MAX_OCTAL_SIZE = 8 ** 11 - 1;

export class TarFormatError extends Error {}

function writeString(header: Buffer, offset: number, length: number, value: string) {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > length) throw new TarFormatError(`tar field too long: ${value}`);
  bytes.copy(header, offset);
}

function writeOctal(header: Buffer, offset: number, length: number, value: number) {
  writeString(header, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

/** Splits a path into ustar's prefix (up to 155 bytes) and name (up to 100 bytes) at a slash. */
function splitName(name: string): { prefix: string; name: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', name };
  for (let cut = name.indexOf('/'); cut >= 0; cut = name.indexOf('/', cut + 1)) {
    const prefix = name.slice(0, cut);
    const rest = name.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100) return { prefix, name: rest };
  }
  throw new TarFormatError(`path too long for a tar archive: ${name}`);
}

/** The header of a regular file `name` of `size` bytes, readable only by its owner (0600). */
export function fileHeader(name: string, size: number, mtimeMs: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const parts = splitName(name);
  writeString(header, 0, 100, parts.name);
  writeOctal(header, 100, 8, 0o600);
  writeOctal(header, 108, 8, 0);
  writeOctal(header, 116, 8, 0);
  if (size <= MAX_OCTAL_SIZE) writeOctal(header, 124, 12, size);
  else {
    header[124] = 0x80;
    header.writeBigUInt64BE(BigInt(size), 128);
  }
  writeOctal(header, 136, 12, Math.floor(mtimeMs / 1000));
  header[156] = '0'.charCodeAt(0);
  writeString(header, 257, 6, 'ustar\0');
  writeString(header, 263, 2, '00');
  writeString(header, 345, 155, parts.prefix);
  header.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  writeString(header, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return header;
}

/** Zero bytes that round a file of `size` bytes up to whole blocks. */
export function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The end of an archive: two zero blocks. */
export const END_OF_ARCHIVE = Buffer.alloc(2 * BLOCK);

function readString(header: Buffer, offset: number, length: number): string {
  const field = header.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString('utf8');
}

function readSize(header: Buffer): number {
  if (header[124] & 0x80) {
    const size = header.readBigUInt64BE(128);
    if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new TarFormatError('tar entry too large');
    return Number(size);
  }
  const text = readString(header, 124, 12).trim();
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError('not a tar archive (bad size field)');
  return Number.parseInt(text, 8);
}

export interface TarEntry {
  name: string;
  size: number;
  /** the entry's bytes; must be read to the end before asking for the next entry */
  body: AsyncIterable<Buffer>;
}

/**
 * The regular-file entries of a tar stream, in order. A header whose checksum does not add up,
 * an entry that is not a regular file, or a stream that ends early throws TarFormatError.
 */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarEntry> {
  const input = new ExactReader(source);
  for (;;) {
    const header = await input.read(BLOCK);
    if (header.every((byte) => byte === 0)) return;
    const stored = Number.parseInt(readString(header, 148, 8).trim(), 8);
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i];
    if (stored !== sum) throw new TarFormatError('not a tar archive, or a damaged one (header checksum)');
    const type = String.fromCharCode(header[156]);
    if (type !== '0' && type !== '\0') throw new TarFormatError(`unexpected tar entry type "${type}"`);
    const prefix = readString(header, 345, 155);
    const name = readString(header, 0, 100);
    const size = readSize(header);
    let consumed = false;
    const body = (async function* () {
      yield* input.stream(size);
      await input.read(padding(size).length);
      consumed = true;
    })();
    yield { name: prefix === '' ? name : `${prefix}/${name}`, size, body };
    if (!consumed) {
      for await (const _ of body);
    }
  }
}

/** Reads exact byte counts from a stream of chunks of any size. */
class ExactReader {
  private readonly chunks: AsyncIterator<Buffer>;
  private pending: Buffer = Buffer.alloc(0);

  constructor(source: AsyncIterable<Buffer>) {
    this.chunks = source[Symbol.asyncIterator]();
  }

  private async fill(): Promise<void> {
    const next = await this.chunks.next();
    if (next.done) throw new TarFormatError('the archive ends early (truncated)');
    this.pending = this.pending.length === 0 ? next.value : Buffer.concat([this.pending, next.value]);
  }

  async read(n: number): Promise<Buffer> {
    while (this.pending.length < n) await this.fill();
    const out = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(n);
    return out;
  }

  async *stream(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.pending.length === 0) await this.fill();
      const take = Math.min(left, this.pending.length);
      yield this.pending.subarray(0, take);
      this.pending = this.pending.subarray(take);
      left -= take;
    }
  }
}
