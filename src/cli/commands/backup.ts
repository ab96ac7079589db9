// `cds backup ARCHIVE` and `cds restore ARCHIVE`: the embedded deployment (SQLite database, blob
// folder, generated service keys) into one archive while it serves, and back into an empty data
// folder (storage/backup/, docs/operations.md "Backup and restore"). They open the files
// themselves: a backup must not migrate the database it copies, a restore has none yet.
import type { Command } from '../command.ts';
import { restoreBackup } from '../../storage/backup/restore-backup.ts';
import { writeBackup } from '../../storage/backup/write-backup.ts';

const EMBEDDED_NOTE =
  'Works on the embedded deployment (DATA_DIR, SQLITE_PATH, BLOB_DIR). With DATABASE_URL or S3_BUCKET\n' +
  'set it refuses: back those up with their own tools (docs/operations.md, "Backup and restore").';

export const backupCommand: Command = {
  group: 'backup',
  summary: 'write one consistent archive of the database, blobs and service keys, while the server runs',
  argument: 'ARCHIVE',
  options: {},
  notes: `ARCHIVE is a new file (a gzipped tar, readable only by its owner); an existing file is never replaced.\n${EMBEDDED_NOTE}`,
  async runOnFiles(config, { argument }, io) {
    const done = await writeBackup(config, argument!);
    io.out(
      `Backup written to ${done.archive} (${done.archiveBytes} bytes): the database as of ${done.createdAt} ` +
        `(migration ${done.latestMigration ?? 'none'}) and ${done.blobs} blob(s), ${done.blobBytes} bytes.`,
    );
  },
};

export const restoreCommand: Command = {
  group: 'restore',
  summary: 'restore a backup archive into an empty data folder',
  argument: 'ARCHIVE',
  options: { force: { type: 'boolean', help: 'replace the deployment already in the data folder (stop its servers first)' } },
  notes: `Every file is checked against the archive's manifest before anything is put in place.\n${EMBEDDED_NOTE}`,
  async runOnFiles(config, { argument, values }, io) {
    const done = await restoreBackup(config, argument!, { force: values.force === true });
    io.out(
      `Restored the backup of ${done.createdAt} (version ${done.serviceVersion}, migration ${done.latestMigration ?? 'none'}, ` +
        `${done.blobs} blob(s)) into ${config.sqlitePath}${done.replaced ? ', replacing the deployment that was there' : ''}. ` +
        'Start the server to serve it; it applies any newer migrations.',
    );
  },
};
