// The file types an evidence upload accepts (the spec's table), decided by the file name's
// extension. Apple iWork documents must also be zip packages: a `.numbers` or `.pages` file whose
// bytes do not start with the zip signature is refused while it streams.
import { Transform, type TransformCallback } from 'node:stream';

const FAMILIES: Record<string, readonly string[]> = {
  word: ['doc', 'docx', 'dotx'],
  excel: ['xls', 'xlsx', 'xlsm'],
  powerpoint: ['ppt', 'pptx'],
  text: ['txt', 'log', 'html'],
  markdown: ['md'],
  yaml: ['yaml', 'yml'],
  csv: ['csv'],
  json: ['json'],
  xml: ['xml'],
  // "any image type": the image formats in common use
  image: ['png', 'jpg', 'jpeg', 'jpe', 'jfif', 'gif', 'svg', 'bmp', 'webp', 'tif', 'tiff', 'ico', 'heic', 'heif', 'avif', 'apng'],
  video: ['mp4', 'avi'],
  audio: ['mp3', 'wav'],
  archive: ['zip', 'rar'],
  iwork: ['numbers', 'pages'],
  email: ['eml', 'msg'],
  other: ['dwf', 'evtx'],
};

const FAMILY_OF = new Map(Object.entries(FAMILIES).flatMap(([family, extensions]) => extensions.map((e) => [e, family] as const)));

/** Every accepted extension, for messages and documentation. */
export const ACCEPTED_EXTENSIONS = [...FAMILY_OF.keys()];

/** The accepted extensions as a refusal names them (`.doc, .docx, …`), so the user can convert the file without a trip to the docs. */
export const ACCEPTED_LIST = ACCEPTED_EXTENSIONS.map((e) => `.${e}`).join(', ');

/** The type family of a file name (`report.PDF` → undefined, `a.docx` → `word`), case-insensitive. */
export function fileFamily(filename: string): string | undefined {
  const dot = filename.lastIndexOf('.');
  if (dot < 0 || dot === filename.length - 1) return undefined;
  return FAMILY_OF.get(filename.slice(dot + 1).toLowerCase());
}

/** Families whose bytes must start with the zip signature. */
export const needsZipSignature = (family: string) => family === 'iwork';

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

export class NotAZipPackageError extends Error {
  constructor() {
    super('The file is not a zip package.');
    this.name = 'NotAZipPackageError';
  }
}

/** Passes bytes through once the first four are the zip signature; errors otherwise (also on a shorter file). */
export class ZipSignatureCheck extends Transform {
  private head = Buffer.alloc(0);
  private checked = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.checked) {
      callback(null, chunk);
      return;
    }
    this.head = Buffer.concat([this.head, chunk]);
    if (this.head.length < ZIP_SIGNATURE.length) callback();
    else if (!this.head.subarray(0, ZIP_SIGNATURE.length).equals(ZIP_SIGNATURE)) callback(new NotAZipPackageError());
    else {
      this.checked = true;
      const all = this.head;
      this.head = Buffer.alloc(0);
      callback(null, all);
    }
  }

  override _flush(callback: TransformCallback): void {
    callback(this.checked ? undefined : new NotAZipPackageError());
  }
}
