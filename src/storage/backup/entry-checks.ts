// What `cds restore` checks in an entry's bytes as they stream, before they reach the disk
// (issue 35): a matching size and SHA-256 in the manifest prove only that the archive is what its
// maker wrote, not that it is a backup, and both are known only at the end. An entry of a known
// format is held back until its first bytes are seen and refused there if they are not that
// format, so a crafted archive cannot make a restore write hundreds of megabytes before SQLite
// itself says "not a database".
import { BackupError } from './backup-error.ts';

export interface EntryFormat {
  /** what the entry must be, for the refusal: "an SQLite database" */
  kind: string;
  /** how many leading bytes the check needs; an entry shorter than this is refused */
  headBytes: number;
  /** why `head` (headBytes long) cannot begin this format's file of `size` bytes, or undefined when it can */
  problem(head: Buffer, size: number): string | undefined;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** database.sqlite: the 100-byte SQLite file header (sqlite.org/fileformat.html, 1.3). */
export const SQLITE_DATABASE: EntryFormat = {
  kind: 'an SQLite database',
  headBytes: 100,
  problem(head, size) {
    if (!head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return 'it does not begin with the SQLite header';
    const field = head.readUInt16BE(16);
    const pageSize = field === 1 ? 65536 : field; // 1 stands for 65536, which 16 bits cannot hold
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0)
      return `its header names a page size (${field}) SQLite does not use`;
    if (size % pageSize !== 0) return `its size (${size} bytes) is not a whole number of its ${pageSize}-byte pages`;
    return undefined;
  },
};

/** manifest.json: the service writes it with JSON.stringify of an object, so its first byte is "{". */
export const JSON_OBJECT: EntryFormat = {
  kind: 'a JSON object',
  headBytes: 1,
  problem: (head) => (head[0] === 0x7b ? undefined : 'it does not begin with "{"'),
};

/**
 * The bytes of `entry`, refused as soon as they pass `size` or, with a `format`, as soon as its
 * first bytes are in and are not that format; nothing of the entry is passed on before that.
 */
export async function* checkedBody(
  entry: { name: string; body: AsyncIterable<Buffer> },
  size: number,
  format?: EntryFormat,
): AsyncGenerator<Buffer> {
  const refuse = (why: string) =>
    new BackupError(`${entry.name} in the archive is not ${format!.kind}: ${why}; the archive is damaged or not a backup.`);
  if (format && size < format.headBytes) throw refuse(`it is ${size} bytes, shorter than the ${format.headBytes}-byte header`);
  const held: Buffer[] = [];
  let heldBytes = 0;
  let checked = format === undefined;
  let seen = 0;
  for await (const chunk of entry.body) {
    seen += chunk.length;
    // the tar header's size already equals the manifest's; this guards the bytes themselves
    if (seen > size)
      throw new BackupError(`${entry.name} in the archive is longer than the ${size} bytes its manifest names; the archive is damaged.`);
    if (checked) {
      yield chunk;
      continue;
    }
    held.push(chunk);
    heldBytes += chunk.length;
    if (heldBytes < format!.headBytes) continue;
    const why = format!.problem(Buffer.concat(held).subarray(0, format!.headBytes), size);
    if (why !== undefined) throw refuse(why);
    checked = true;
    yield* held;
    held.length = 0;
  }
  if (!checked) throw refuse(`it ends within its ${format!.headBytes}-byte header`);
}
