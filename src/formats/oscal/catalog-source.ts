// A framework of an organization's program, named by its key, as an OSCAL catalog export takes it
// (./catalog-export.ts): its ID (the catalog's uuid comes from it), name, and
// requirements in order with their keys; when it last changed. `cds program export --oscal-catalog`.
import type { BaseContext } from '../../domain/context.ts';
import { notFound } from '../../shared/errors.ts';
import type { FrameworkForExport } from './catalog-export.ts';
import { listFrameworks } from '../../storage/db/repositories/compliance/frameworks.ts';
import { loadProgramKeys } from '../../storage/db/repositories/program/program-keys.ts';
import { exportProgramKinds } from '../../domain/program/verbs.ts';
import type { ProgramFramework } from '../../domain/frameworks/program-schema.ts';

export async function frameworkForCatalog(
  ctx: BaseContext,
  organizationId: string,
  frameworkKey: string,
): Promise<FrameworkForExport & { lastModified: number }> {
  let entry: ProgramFramework | undefined;
  for await (const [kind, entries] of exportProgramKinds({ ctx, input: { organizationId } })) {
    if (kind !== 'frameworks') continue;
    entry = (entries as ProgramFramework[]).find((f) => f.key === frameworkKey);
    break;
  }
  if (!entry) throw notFound(`The framework with key "${frameworkKey}"`);
  const keyRow = (await loadProgramKeys(ctx.db.kysely, organizationId)).find((r) => r.kind === 'framework' && r.key === frameworkKey);
  const id = keyRow?.recordId ?? frameworkKey;
  const row = (await listFrameworks(ctx.db.kysely, organizationId, {})).find((f) => f.id === id);
  return {
    id,
    name: entry.name,
    requirements: entry.requirements.map((r) => ({ key: r.key, code: r.code, name: r.name })),
    lastModified: row?.modifiedOn ?? row?.addedOn ?? ctx.now(),
  };
}
