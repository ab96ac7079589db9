#!/usr/bin/env node
// The `compliance` command's entry point, the same file in a source checkout and in the installed
// package. In the repository (src/ beside this file) it runs the TypeScript source, so
// `npx compliance` is never behind the code; npx puts node_modules/.bin first on PATH, so "node"
// above is the project's pinned Node.js 24, which runs .ts files. The published package has no
// src/ (package.json "files"): there it runs the bundle that `npm run build` made.
import { existsSync } from 'node:fs';

const source = new URL('../src/main.ts', import.meta.url);
const fromSource = existsSync(source);
const [major, minor] = process.versions.node.split('.').map(Number);
// The bundle targets Node.js 22; the source needs type stripping (on by default from 22.18).
if (major < 22 || (fromSource && major === 22 && minor < 18)) {
  process.stderr.write(
    `compliance: needs Node.js ${fromSource ? '22.18' : '22'} or later; this is ${process.version} (${process.execPath})\n` +
      (fromSource ? '  In the repository, run it as "npx compliance", which uses the project\'s Node.js 24.\n' : ''),
  );
  process.exit(1);
}
await import(fromSource ? source.href : new URL('../dist/compliance.js', import.meta.url).href);
