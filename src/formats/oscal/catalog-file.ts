// An OSCAL catalog file → a framework: the guarded read (size, UTF-8, nesting, numbers) then the
// import. What `--oscal-catalog FILE` reads.
import type { ProgramFramework } from '../../domain/frameworks/program-schema.ts';
import { type CatalogImportOptions, frameworkFromCatalog } from './catalog-import.ts';
import { readGuardedJsonFile } from './guarded-json.ts';

/** Largest catalog file read: 32 MiB, room for the largest public catalogs (docs/oscal.md). */
export const CATALOG_FILE_MAX_BYTES = 32 * 1024 * 1024;

export async function frameworkFromCatalogFile(
  path: string,
  options: CatalogImportOptions & { maxBytes?: number } = {},
): Promise<ProgramFramework> {
  const document = await readGuardedJsonFile(path, { maxBytes: options.maxBytes ?? CATALOG_FILE_MAX_BYTES });
  return frameworkFromCatalog(document, { key: options.key });
}
