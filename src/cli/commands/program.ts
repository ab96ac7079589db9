// `cds program`: an organization's program as a document (docs/program-documents.md): export it,
// plan a document against it, apply one. An OSCAL catalog can stand for a document holding one
// framework (`--oscal-catalog FILE`), and a framework exports as an OSCAL catalog. Problems with a
// document print as `file:line:column: /json/pointer message`, one per line.
import { stringify } from 'yaml';
import { announceOrganizationChange } from '../../domain/auth/state-markers.ts';
import { recordAudit } from '../../domain/console/audit.ts';
import { applyAuditLabel } from '../../domain/program/console-door.ts';
import { applyProgramIn, exportProgram, planProgram, type ProgramContext } from '../../domain/program/verbs.ts';
import { operatorActor } from '../../operator-actor.ts';
import { PROGRAM_FORMAT_VERSION } from '../../domain/program/document-schema.ts';
import type { ProgramPlan } from '../../domain/program/plan-schema.ts';
import { frameworkFromCatalog } from '../../formats/oscal/catalog-import.ts';
import { catalogFromFramework } from '../../formats/oscal/catalog-export.ts';
import { CATALOG_FILE_MAX_BYTES } from '../../formats/oscal/catalog-file.ts';
import { issueLine, loadProgramPath, withPlaces, type LoadedProgram, type ProgramIssue } from '../../formats/program/load.ts';
import { planText } from '../../formats/program/plan-text.ts';
import { frameworkForCatalog } from '../../formats/oscal/catalog-source.ts';
import { schemaComment } from '../../formats/program/schema-file.ts';
import { ServiceError } from '../../shared/errors.ts';
import { JSON_OPTION, ORG_OPTION, type Command, type OptionValues } from '../command.ts';
import type { CliContext } from '../context.ts';
import { DocumentRefused } from '../document-refused.ts';
import { EXIT } from '../exit-codes.ts';
import type { CliIo } from '../io.ts';
import { organizationId } from '../organization-id.ts';
import { UsageError } from '../usage-error.ts';

/** What `plan` and `apply` read: PATH (a file or a folder), or --oscal-catalog FILE. */
async function readDocument(ctx: CliContext, values: OptionValues, argument: string | undefined): Promise<LoadedProgram> {
  const catalog = values['oscal-catalog'] as string | undefined;
  if (catalog !== undefined && argument !== undefined) throw new UsageError('Give PATH or --oscal-catalog FILE, not both.');
  if (catalog === undefined && argument === undefined)
    throw new UsageError('Give the document: PATH (a file or a folder), or --oscal-catalog FILE.');
  if (catalog !== undefined && values.prune) {
    throw new UsageError('--prune cannot go with --oscal-catalog: the catalog is one framework, and pruning would delete the others.');
  }
  // PROGRAM_MAX_YAML_BYTES guards the server's event loop and memory (HTTP, the console); `cds` runs
  // in the operator's own process, so a YAML document may be as large as any document.
  const limits = { ...ctx.config.program, maxYamlBytes: ctx.config.program.maxBytes };
  if (catalog === undefined) return loadProgramPath(argument!, limits);
  const file = await loadProgramPath(catalog, { ...limits, maxBytes: Math.min(limits.maxBytes, CATALOG_FILE_MAX_BYTES) });
  let framework;
  try {
    framework = frameworkFromCatalog(file.value, { key: values.key as string | undefined });
  } catch (error) {
    throw withPlaces(error, file);
  }
  // A problem found later is about the document made from the catalog: no place in the file.
  return { value: { version: PROGRAM_FORMAT_VERSION, frameworks: [framework] }, files: file.files, locate: () => undefined };
}

/** Problems found while reading carry their places already. */
const NO_PLACES: LoadedProgram = { value: undefined, files: [], locate: () => undefined };

/** The document at PATH or --oscal-catalog FILE; a refusal is reported with its places. */
async function documentOf(ctx: CliContext, values: OptionValues, argument: string | undefined): Promise<LoadedProgram> {
  try {
    return await readDocument(ctx, values, argument);
  } catch (error) {
    throw reported(error, NO_PLACES);
  }
}

/** A validation_failed about the document, with each problem's place (file:line:column). */
/**
 * Plans or applies (`step`) the document PATH names for the organization `--org` names; a refusal
 * is reported against the document's files and lines.
 */
async function withDocument(
  ctx: CliContext,
  values: OptionValues,
  argument: string | undefined,
  step: (input: { organizationId: string; document: unknown; prune: boolean }, loaded: LoadedProgram) => Promise<ProgramPlan>,
): Promise<{ org: string; plan: ProgramPlan }> {
  const org = await organizationId(ctx.system, values.org as string);
  const loaded = await documentOf(ctx, values, argument);
  try {
    return { org, plan: await step({ organizationId: org, document: loaded.value, prune: Boolean(values.prune) }, loaded) };
  } catch (error) {
    throw reported(error, loaded);
  }
}

function reported(error: unknown, loaded: LoadedProgram): unknown {
  const placed = withPlaces(error, loaded);
  if (!(placed instanceof ServiceError) || placed.code !== 'validation_failed') return placed;
  const lines = (placed.details as ProgramIssue[]).map((issue) => `  ${issueLine(issue)}`);
  return new DocumentRefused(`${placed.message}\n${lines.join('\n')}`);
}

function programContext(ctx: CliContext): ProgramContext {
  return { ...ctx.system, stamp: { kind: 'service' } };
}

function printPlan(plan: ProgramPlan, values: OptionValues, io: CliIo, applied: boolean) {
  io.out(values.json ? JSON.stringify(plan) : planText(plan, { applied }));
}

/** The audit entry's target label: what was applied and how much it changed. */
export const auditLabel = (plan: ProgramPlan, loaded: Pick<LoadedProgram, 'files'>) =>
  applyAuditLabel(plan, loaded.files.length === 1 ? loaded.files[0] : `${loaded.files.length} files`);

const DOCUMENT_OPTIONS = {
  'oscal-catalog': {
    type: 'string',
    value: 'FILE',
    help: 'an OSCAL 1.x catalog in JSON instead of PATH: a document holding that one framework (docs/oscal.md)',
  },
  key: { type: 'string', value: 'KEY', help: "with --oscal-catalog: the framework's key (default: a slug of the catalog's title)" },
  prune: { type: 'boolean', help: 'also delete the records of the kinds the document covers that it does not list' },
  json: { ...JSON_OPTION, help: 'print the plan as JSON instead of text' },
} as const;

export const programCommands: Command[] = [
  {
    group: 'program',
    action: 'export',
    summary: "write an organization's program as a document to standard output",
    options: {
      org: ORG_OPTION,
      format: { type: 'string', value: 'yaml|json', help: 'the document format (default: yaml)' },
      'oscal-catalog': {
        type: 'string',
        value: 'FRAMEWORK_KEY',
        help: "instead: that framework's requirements as an OSCAL catalog (JSON)",
      },
    },
    async run(ctx, { values }, io) {
      const org = await organizationId(ctx.system, values.org as string);
      const format = (values.format as string | undefined) ?? 'yaml';
      if (format !== 'yaml' && format !== 'json') throw new UsageError(`--format must be yaml or json, not "${format}".`);
      const frameworkKey = values['oscal-catalog'] as string | undefined;
      if (frameworkKey !== undefined) {
        if (values.format !== undefined && format !== 'json') throw new UsageError('An OSCAL catalog is written as JSON only.');
        const framework = await frameworkForCatalog(ctx.system, org, frameworkKey);
        io.out(JSON.stringify(catalogFromFramework(framework, { lastModified: framework.lastModified }), null, 2));
        return;
      }
      const document = await exportProgram({ ctx: ctx.system, input: { organizationId: org } });
      if (format === 'json') io.out(JSON.stringify(document, null, 2));
      else io.out(`${schemaComment(ctx.config)}\n${stringify(document, { lineWidth: 0 })}`.trimEnd());
    },
  },
  {
    group: 'program',
    action: 'plan',
    summary: 'show what applying a document would change, changing nothing (exit 0: nothing, 2: something)',
    argument: 'PATH',
    argumentOptional: true,
    options: { org: ORG_OPTION, ...DOCUMENT_OPTIONS },
    notes:
      'PATH is a .yaml, .yml or .json file, or a folder of them that together make one document.\n' +
      'Exit status: 0 when nothing would change, 2 when something would (as terraform plan -detailed-exitcode).',
    async run(ctx, { values, argument }, io) {
      const { plan } = await withDocument(ctx, values, argument, (input) => planProgram({ ctx: programContext(ctx), input }));
      printPlan(plan, values, io, false);
      return plan.changed ? EXIT.changes : EXIT.ok;
    },
  },
  {
    group: 'program',
    action: 'apply',
    summary: 'apply a document to an organization, all or nothing',
    argument: 'PATH',
    argumentOptional: true,
    options: { org: ORG_OPTION, ...DOCUMENT_OPTIONS },
    notes:
      'PATH is a .yaml, .yml or .json file, or a folder of them that together make one document.\n' +
      'Records the document does not list stay, unless --prune; pruning removes only records of the kinds the document covers.',
    async run(ctx, { values, argument }, io) {
      const pctx = programContext(ctx);
      const { org, plan } = await withDocument(ctx, values, argument, (input, loaded) =>
        // The apply and its audit entry in one transaction; an apply that changes nothing writes neither.
        pctx.db.kysely.transaction().execute(async (trx) => {
          const applied = await applyProgramIn(trx, pctx, input);
          if (applied.changed) {
            await recordAudit(trx, {
              organizationId: input.organizationId,
              actor: operatorActor('cds program apply'),
              action: 'program.apply',
              target: { type: 'program', id: input.organizationId, label: auditLabel(applied, loaded) },
              at: pctx.now(),
            });
          }
          return applied;
        }),
      );
      if (plan.changed) await announceOrganizationChange(pctx, org);
      printPlan(plan, values, io, true);
    },
  },
];
