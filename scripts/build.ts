// `npm run build`: what production runs, in dist/ (ignored by git). The server and `cds` compiled
// to JavaScript by tsc (tsconfig.build.json), and the developer console bundled now, at build time,
// into dist/console/bundle, which the built server serves as is (src/console/prebuilt-assets.ts).
// `node dist/main.js` then needs neither the TypeScript source nor esbuild, only the production
// dependencies; docs/deployment.md says how the image and the systemd unit use it.
//   node scripts/build.ts [DIR]    build into DIR instead (a folder next to package.json: the built
//                                  server reads its version from ../../package.json, in shared/)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildConsoleAssets } from '../src/console/assets.ts';
import { writePrebuiltAssets } from '../src/console/prebuilt-assets.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist'));

fs.rmSync(DIST, { recursive: true, force: true });
execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', DIST], {
  stdio: 'inherit',
});
// `cds` is run as a command (package.json `bin`, the image's /usr/local/bin/cds).
fs.chmodSync(path.join(DIST, 'cli/main.js'), 0o755);
await writePrebuiltAssets(await buildConsoleAssets(), path.join(DIST, 'console/bundle'));
console.log(`built ${path.relative(process.cwd(), DIST) || '.'}: node dist/main.js (server), node dist/cli/main.js (cds)`);
