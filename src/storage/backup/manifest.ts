// The first entry of every backup archive (`manifest.json`): what the archive holds and how to
// check it. `cds restore` reads it before anything else, so an archive of another kind, of a newer
// version, or with a damaged file is refused before the data folder is touched.
import { BackupError } from './backup-error.ts';
import { assertBlobKey } from '../blobs/store.ts';

export const MANIFEST_ENTRY = 'manifest.json';
export const DATABASE_ENTRY = 'database.sqlite';
export const BLOB_ENTRY_PREFIX = 'blobs/';
/** the manifest lists every blob; this bounds what a restore reads into memory (about 5 million blobs) */
export const MAX_MANIFEST_BYTES = 1024 ** 3;

export interface ArchivedFile {
  size: number;
  /** lowercase hex SHA-256 */
  sha256: string;
}

export interface Manifest {
  format: 'cds-backup';
  formatVersion: 1;
  /** the service version that wrote the archive */
  serviceVersion: string;
  /** ISO 8601: when the database snapshot was taken */
  createdAt: string;
  /** the migrations applied to the archived database, oldest first */
  migrations: string[];
  database: ArchivedFile;
  /** the blobs the database refers to, by key */
  blobs: (ArchivedFile & { key: string })[];
}

const isFile = (v: unknown): v is ArchivedFile =>
  typeof v === 'object' &&
  v !== null &&
  Number.isSafeInteger((v as ArchivedFile).size) &&
  (v as ArchivedFile).size >= 0 &&
  typeof (v as ArchivedFile).sha256 === 'string' &&
  /^[0-9a-f]{64}$/.test((v as ArchivedFile).sha256);

/** The manifest in `text`, checked field by field; a BackupError says what is wrong. */
export function parseManifest(text: string): Manifest {
  let value: Partial<Manifest>;
  try {
    value = JSON.parse(text) as Partial<Manifest>;
  } catch {
    throw new BackupError('Not a backup archive of this service: its manifest is not JSON.');
  }
  if (value?.format !== 'cds-backup')
    throw new BackupError('Not a backup archive of this service (manifest.json has no "format": "cds-backup").');
  if (value.formatVersion !== 1) {
    throw new BackupError(
      `The archive has format version ${String(value.formatVersion)}, which this version of the service cannot read; restore it with the version that wrote it (${String(value.serviceVersion)}) or later.`,
    );
  }
  const valid =
    typeof value.serviceVersion === 'string' &&
    typeof value.createdAt === 'string' &&
    Array.isArray(value.migrations) &&
    value.migrations.every((m) => typeof m === 'string') &&
    isFile(value.database) &&
    Array.isArray(value.blobs) &&
    value.blobs.every((b) => isFile(b) && typeof b.key === 'string');
  if (!valid) throw new BackupError("The archive's manifest is damaged: a field is missing or has the wrong type.");
  const keys = new Set<string>();
  for (const blob of value.blobs!) {
    try {
      assertBlobKey(blob.key);
    } catch {
      throw new BackupError(`The archive's manifest names an invalid blob key: ${JSON.stringify(blob.key)}.`);
    }
    if (keys.has(blob.key)) throw new BackupError(`The archive's manifest lists blob ${blob.key} twice.`);
    keys.add(blob.key);
  }
  return value as Manifest;
}
