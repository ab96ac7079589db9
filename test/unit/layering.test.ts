// The shape of src/, read from its imports (docs/development.md, "Layers"): every file imports only
// from its own layer or the ones below, nothing imports in a circle, and no file grows past 500
// lines. It reads the source as text, so it holds for type-only imports too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Files that are data or generated, not code a person reads as a unit: the length bound skips them. */
const NOT_CODE = [/^demo\/catalogues\//, /^console\/web\/types\.ts$/];

/** The layers, lowest first; a file may import from its own layer and from the ones below it. */
const LAYERS: Array<[name: string, holds: (file: string) => boolean]> = [
  ['shared', (f) => f.startsWith('shared/')],
  ['config', (f) => f === 'config.ts'],
  ['storage', (f) => f.startsWith('storage/')],
  ['domain', (f) => f.startsWith('domain/')],
  ['formats', (f) => f.startsWith('formats/')],
  // The doors and the adapters around them: HTTP, the worker threads, the CLIs, the console, the
  // demo generator and the process's own small parts (logger, banner, start-up warnings).
  ['doors', (f) => f !== 'app.ts' && f !== 'main.ts'],
  ['process', (f) => f === 'app.ts' || f === 'main.ts'],
];

function layerOf(file: string): number {
  return LAYERS.findIndex(([, holds]) => holds(file));
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Each file under src/ (relative to it) with the files under src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const full of sourceFiles(SRC)) {
    const text = fs.readFileSync(full, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const target = path.relative(SRC, path.resolve(path.dirname(full), match[1] ?? match[2]));
      if (!target.startsWith('..')) targets.push(target);
    }
    graph.set(path.relative(SRC, full), targets);
  }
  return graph;
}

const graph = importGraph();

test('no file under src/ imports from a layer above its own', () => {
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      if (layerOf(target) > layerOf(file))
        upward.push(`${file} (${LAYERS[layerOf(file)][0]}) imports ${target} (${LAYERS[layerOf(target)][0]})`);
    }
  }
  assert.deepEqual(upward, []);
});

test('inside the domain: the record kinds import only the kind contract (domain/kinds/), never the program engine (domain/program/)', () => {
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    if (!file.startsWith('domain/') || file.startsWith('domain/program/')) continue;
    for (const target of targets) {
      if (target.startsWith('domain/program/')) upward.push(`${file} imports the engine's ${target}`);
      // The contract sits below every kind: it names no resource folder.
      if (file.startsWith('domain/kinds/') && /^domain\/(?!kinds\/)[^/]+\//.test(target))
        upward.push(`the contract's ${file} imports ${target}`);
    }
  }
  assert.deepEqual(upward, []);
});

test('no import circle under src/', () => {
  // Tarjan's strongly connected components: any component of two or more files is a circle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  assert.deepEqual(circles, []);
});

test('no file under src/ passes 500 lines (data and generated files aside)', () => {
  const long: string[] = [];
  for (const file of graph.keys()) {
    if (NOT_CODE.some((pattern) => pattern.test(file))) continue;
    const lines = fs.readFileSync(path.join(SRC, file), 'utf8').split('\n').length - 1;
    if (lines > 500) long.push(`${file}: ${lines} lines`);
  }
  assert.deepEqual(long, []);
});

test('the layering check sees the imports it must: a known downward import is found', () => {
  // Guards the reader itself: were its pattern to miss imports, the checks above would pass on anything.
  assert.ok(graph.get('app.ts')?.includes('config.ts'), 'app.ts imports config.ts');
  assert.ok(graph.size > 300, `read ${graph.size} files`);
});
