// Before `cds restore` writes a byte, the manifest's sizes are compared with the free space where
// they go (issue 35): an archive declaring more than fits is refused at once, instead of filling
// the disk the server's data is on (the deployment being replaced stays in place until the
// restored one is complete, so the free space must hold all of it).
import fs from 'node:fs/promises';
import { BackupError } from './backup-error.ts';
import { DATABASE_ENTRY, type Manifest } from './manifest.ts';

/** Refuses unless each filesystem holding `databaseDir` or `blobDir` (both existing folders) has room for what goes there. */
export async function assertRoomFor(manifest: Manifest, databaseDir: string, blobDir: string): Promise<void> {
  const blobBytes = manifest.blobs.reduce((sum, b) => sum + b.size, 0);
  const needs = [
    { dir: databaseDir, bytes: manifest.database.size, what: [DATABASE_ENTRY] },
    { dir: blobDir, bytes: blobBytes, what: [`${manifest.blobs.length} blob(s)`] },
  ];
  // one filesystem holding both must hold their sum
  if ((await fs.stat(databaseDir)).dev === (await fs.stat(blobDir)).dev) {
    needs.splice(0, 2, { dir: databaseDir, bytes: manifest.database.size + blobBytes, what: [DATABASE_ENTRY, needs[1].what[0]] });
  }
  for (const need of needs) {
    const stats = await fs.statfs(need.dir);
    const free = stats.bavail * stats.bsize;
    if (need.bytes > free) {
      throw new BackupError(
        `The archive holds ${need.bytes} bytes for ${need.dir} (${need.what.join(' and ')}) but its filesystem has ${free} bytes free: ${need.bytes - free} bytes short. Free that space, or restore into a data folder on a larger filesystem.`,
      );
    }
  }
}
