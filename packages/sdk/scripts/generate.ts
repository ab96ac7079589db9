// Regenerates src/generated/api.ts from the server's OpenAPI document.
//   node packages/sdk/scripts/generate.ts                 build the server in-process and write the file
//   node packages/sdk/scripts/generate.ts --check         exit 1 when the committed file is stale
//   node packages/sdk/scripts/generate.ts --from <url|file>   read /openapi.json from a running server or a file
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderApiModule, type OpenApiDocument } from './openapi-to-ts.ts';

export const GENERATED_FILE = fileURLToPath(new URL('../src/generated/api.ts', import.meta.url));

export async function renderFromServer(): Promise<string> {
  // Loaded only here: it imports the server's source.
  const { loadServerOpenApi } = await import('./load-openapi.ts');
  return renderApiModule(await loadServerOpenApi());
}

async function readDocument(from: string): Promise<OpenApiDocument> {
  if (/^https?:\/\//.test(from)) {
    const res = await fetch(from);
    if (!res.ok) throw new Error(`GET ${from} answered ${res.status}`);
    return (await res.json()) as OpenApiDocument;
  }
  return JSON.parse(fs.readFileSync(from, 'utf8')) as OpenApiDocument;
}

if (import.meta.main) {
  const fromIndex = process.argv.indexOf('--from');
  const source = fromIndex > 0 ? renderApiModule(await readDocument(process.argv[fromIndex + 1])) : await renderFromServer();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(GENERATED_FILE) ? fs.readFileSync(GENERATED_FILE, 'utf8') : '';
    if (current !== source) {
      console.error(`${GENERATED_FILE} is out of date: run npm run generate -w packages/sdk`);
      process.exit(1);
    }
    console.log('generated types are up to date');
  } else {
    fs.writeFileSync(GENERATED_FILE, source);
    console.log(`wrote ${GENERATED_FILE}`);
  }
}
