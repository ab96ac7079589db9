// Builds the developer console's browser bundle in memory at server start-up, so the
// repository holds no generated files and the served assets always match the source.
import { basename, join } from 'node:path';
import { build } from 'esbuild';

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

export interface ConsoleAssets {
  /** The HTML shell, answered for every /console/* page path. */
  html: string;
  /** Keyed by file name under /console/assets/, e.g. "app-3FQ7XK2L.js". */
  files: Map<string, ConsoleAsset>;
}

export const CONSOLE_ASSETS_PATH = '/console/assets/';

const WEB_DIR = join(import.meta.dirname, 'web');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export async function buildConsoleAssets(): Promise<ConsoleAssets> {
  const result = await build({
    absWorkingDir: WEB_DIR,
    // Two entries with the same output name give app-<hash>.js and app-<hash>.css.
    entryPoints: [
      { in: join(WEB_DIR, 'main.tsx'), out: 'app' },
      { in: join(WEB_DIR, 'styles.css'), out: 'app' },
    ],
    // Never written: outdir only gives the output files a path to name them by.
    outdir: join(WEB_DIR, 'dist'),
    entryNames: '[name]-[hash]',
    write: false,
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(WEB_DIR, 'tsconfig.json'),
    charset: 'utf8',
    legalComments: 'eof',
    sourcemap: false,
    logLevel: 'silent',
  });

  const files = new Map<string, ConsoleAsset>();
  let script: string | undefined;
  let stylesheet: string | undefined;
  for (const output of result.outputFiles) {
    const name = basename(output.path);
    const extension = name.slice(name.lastIndexOf('.'));
    const contentType = CONTENT_TYPES[extension];
    if (contentType === undefined) throw new Error(`Console bundle produced an unexpected file: ${name}`);
    files.set(name, { body: Buffer.from(output.contents), contentType });
    if (extension === '.js') script = name;
    else stylesheet = name;
  }
  if (script === undefined || stylesheet === undefined) {
    throw new Error('Console bundle is missing its script or stylesheet');
  }
  return { html: renderShell(CONSOLE_ASSETS_PATH + script, CONSOLE_ASSETS_PATH + stylesheet), files };
}

// No inline script or style: the console's Content-Security-Policy allows neither.
function renderShell(scriptUrl: string, stylesheetUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="referrer" content="no-referrer">
<title>Developer console</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${stylesheetUrl}">
<script type="module" src="${scriptUrl}"></script>
</head>
<body>
<div id="app"></div>
<noscript><p class="noscript">The developer console needs JavaScript. Turn on JavaScript for this site and reload the page.</p></noscript>
</body>
</html>
`;
}
