// After `tsc -p tsconfig.build.json`: the emitted .js files import `./x.js`
// (rewriteRelativeImportExtensions), but TypeScript 7 leaves `./x.ts` in the .d.ts files.
// Declarations that name .ts files confuse older TypeScript consumers, so rewrite them to .js,
// which resolves to the .d.ts next to it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist', import.meta.url));
let changed = 0;
for (const entry of fs.readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
  const file = path.join(entry.parentPath, entry.name);
  const text = fs.readFileSync(file, 'utf8');
  const fixed = text.replace(/(from\s+|import\s*\(\s*)(['"])(\.{1,2}\/[^'"]*?)\.ts\2/g, '$1$2$3.js$2');
  if (fixed !== text) {
    fs.writeFileSync(file, fixed);
    changed++;
  }
}
console.log(`declaration imports rewritten to .js in ${changed} files`);
