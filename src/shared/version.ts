// Which release this process runs: package.json's version, read once. The path is the same from
// src/shared/version.ts and from the build's dist/shared/version.js, both two levels below package.json. Named by
// `cds version`, /healthz, `cds backup` manifests, and recorded in the database by every migration
// run (storage/db/migrate.ts).
import fs from 'node:fs';

export const SERVICE_NAME = 'compliance-data-service';

export const SERVICE_VERSION = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
