// Writes schemas/program.schema.json, the program document's JSON Schema, from the TypeBox schema
// the service validates with (src/formats/program/schema-file.ts).
//   node scripts/generate-program-schema.ts           write it (npm run generate)
//   node scripts/generate-program-schema.ts --check   exit 1 when the committed file is stale
// test/unit/program-schema.test.ts fails when it drifts.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { programJsonSchemaText } from '../src/formats/program/schema-file.ts';

export const PROGRAM_SCHEMA_FILE = fileURLToPath(new URL('../schemas/program.schema.json', import.meta.url));

if (import.meta.main) {
  const text = programJsonSchemaText();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(PROGRAM_SCHEMA_FILE) ? fs.readFileSync(PROGRAM_SCHEMA_FILE, 'utf8') : '';
    if (current !== text) {
      console.error(`${PROGRAM_SCHEMA_FILE} is out of date: run npm run generate`);
      process.exit(1);
    }
  } else {
    fs.mkdirSync(new URL('../schemas/', import.meta.url), { recursive: true });
    fs.writeFileSync(PROGRAM_SCHEMA_FILE, text);
    console.log(`wrote ${PROGRAM_SCHEMA_FILE}`);
  }
}
