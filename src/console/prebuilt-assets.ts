// The console's bundle as `npm run build` writes it next to the built server (dist/console/bundle),
// so a production process serves the bundle made at build time and never loads the bundler
// (esbuild is a build tool: the container image does not have it). From the TypeScript source
// (`npm start`) there is no such folder and the bundle is built at start-up (assets.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ConsoleAsset, ConsoleAssets } from './assets.ts';

/** Where the running code looks for a prebuilt bundle: next to this module. */
export const PREBUILT_DIR = path.join(import.meta.dirname, 'bundle');
const MANIFEST = 'manifest.json';
const SHELL = 'index.html';

interface Manifest {
  files: { name: string; contentType: string }[];
}

/** Writes the bundle into `dir` (created; emptied first): its files, the HTML shell and a manifest. */
export async function writePrebuiltAssets(assets: ConsoleAssets, dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  const manifest: Manifest = { files: [] };
  for (const [name, file] of assets.files) {
    await fs.writeFile(path.join(dir, name), file.body);
    manifest.files.push({ name, contentType: file.contentType });
  }
  await fs.writeFile(path.join(dir, SHELL), assets.html);
  // last: a folder without its manifest is an interrupted build, not a bundle
  await fs.writeFile(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The bundle in `dir`, or undefined when there is none (running from the source). */
export async function readPrebuiltAssets(dir: string = PREBUILT_DIR): Promise<ConsoleAssets | undefined> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await fs.readFile(path.join(dir, MANIFEST), 'utf8')) as Manifest;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const files = new Map<string, ConsoleAsset>();
  for (const { name, contentType } of manifest.files) {
    files.set(name, { body: await fs.readFile(path.join(dir, name)), contentType });
  }
  return { html: await fs.readFile(path.join(dir, SHELL), 'utf8'), files };
}
