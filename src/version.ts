// The version of this build, from package.json: named by `cds backup` manifests and recorded in
// the database by every migration run (storage/db/migrate.ts).
import fs from 'node:fs';

export const SERVICE_VERSION = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
