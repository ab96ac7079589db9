// The CommonJS entry of the package, for `require('@compliance-data/sdk')`: after tsc has written
// the ES modules and declarations to dist/, esbuild bundles src/index.ts once more as CommonJS into
// dist/cjs/index.js, and the declarations are copied beside it under a package.json that says
// "commonjs", so TypeScript checks `require` callers against types of the right module kind.
// One source, two formats; the package.json "exports" map picks one by how the package is loaded.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist');
const cjs = path.join(dist, 'cjs');

await build({
  entryPoints: [path.join(root, 'src/index.ts')],
  outfile: path.join(cjs, 'index.js'),
  bundle: true,
  format: 'cjs',
  platform: 'neutral',
  target: 'es2022',
  logLevel: 'warning',
});
fs.writeFileSync(path.join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);

let copied = 0;
for (const entry of fs.readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
  const from = path.join(entry.parentPath, entry.name);
  if (from.startsWith(cjs + path.sep)) continue;
  const to = path.join(cjs, path.relative(dist, from));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  copied++;
}
console.log(`CommonJS entry written to dist/cjs/index.js with ${copied} declaration files`);
