// compliance vulnerabilities import --format FORMAT [--scope SCOPE] FILE
// A scanner's file (or its standard input, FILE `-`) streamed to POST /v1/vulnerabilities/imports
// through the SDK, never read whole. A file is handed over as a stream factory that counts the
// bytes it reads, so a retry opens it again (and the progress bar restarts with it); standard
// input can be read once only, so an import from it is not retried once sent. The service judges
// the format (an unknown one is its 400, exit 6, listing the known ones) and the size limit.
import fs from 'node:fs';
import { UsageError, type OptionSpec, type ParsedValues } from '../args.ts';
import type { Context } from '../context.ts';
import { writeRecord } from '../output/writer.ts';
import { formatBytes, jobProgressDetail, progressBar, statusLine } from '../progress.ts';
import type { ImportFile, ImportOptions, ImportResult, JobProgress, ResponseInfo, ScannerFormat } from '../sdk.ts';
import { SCANNER_FORMAT } from '../vocabulary.ts';
import type { Command } from './command.ts';
import { idempotencyKeyOption, sendWrite } from './writes.ts';

const CHUNK = 64 * 1024;

export const vulnerabilityImportCommand: Command = {
  group: 'vulnerabilities',
  action: 'import',
  summary: "import a scanner's findings (SARIF, Trivy, Grype, OSV, CycloneDX, OpenVEX)",
  examples: [
    'vulns import --format sarif --scope github.com/acme/shop results.sarif',
    'vulns import --format trivy --scope registry.example.com/shop:1.4 trivy.json --json',
    'cat grype.json | compliance vulns import --format grype --scope registry.example.com/shop:1.4 -',
  ],
  args: 'FILE',
  positionals: { min: 1, max: 1, name: 'FILE (a path, or - for standard input)' },
  options: importOptions(
    SCANNER_FORMAT,
    "the file's format (required)",
    "what was scanned (image, repository, target); default: the file's own, where its format names one",
  ),
  notes: [
    'Findings of the scope and the source that the file no longer reports are closed, and closed ones',
    'reported again reopen; unchanged findings are not written. Run it after every scan of the same',
    'thing with the same --scope. The answer counts what happened (created, updated, closed, reopened,',
    'unchanged) and lists the IDs of the findings changed. A file the service cannot read as FORMAT is',
    'refused with validation_failed (exit 6) naming the place in the file; nothing is written. An import',
    'from a file is retried like any write; one from standard input cannot be sent twice, so it is not.',
    'A file the service takes as a job (above its IMPORT_JOB_THRESHOLD_BYTES, 8 MiB by default) is',
    'followed until it ends, and the answer is the same; at a terminal one line on stderr says where it is',
    '(queued, running, done).',
    'Formats and their mappings: docs/scanner-formats.md.',
  ].join('\n'),
  async run(ctx, values, [file]) {
    const format = values.format as string | undefined;
    if (format === undefined) throw new UsageError(`--format is required: ${SCANNER_FORMAT.join(', ')}`);
    const scope = values.scope as string | undefined;
    await runFileImport(ctx, values, file as string, {
      stdinHint: "pipe the scanner's output in",
      send: (client, source, options) => client.vulnerabilities.import({ format: format as ScannerFormat, scope, file: source }, options),
      summary,
    });
  },
};

/** The options of an import command: --format (one of `formats`), --scope, --json, --idempotency-key. */
export function importOptions(formats: readonly string[], formatHelp: string, scopeHelp: string): OptionSpec[] {
  return [
    { name: 'format', kind: 'string', valueName: 'FORMAT', values: formats, help: formatHelp },
    { name: 'scope', kind: 'string', valueName: 'SCOPE', help: scopeHelp },
    { name: 'json', kind: 'switch', help: 'print the answer as JSON (the same as -o json)' },
    idempotencyKeyOption,
  ];
}

/** What an import command hands the shared run: how to send the file, and the lines a person reads of the answer. */
export interface FileImport<T> {
  /** the end of the refusal of a terminal as standard input: what to pipe in */
  stdinHint: string;
  send(client: ReturnType<Context['client']>, file: ImportFile, options: ImportOptions): Promise<{ data: T; response: ResponseInfo }>;
  summary(data: T, size: number | undefined): string;
}

/**
 * The run every import command shares (this one and `tests import`): the file streamed with a
 * progress bar (a path reopened on a retry, standard input sent once), a job followed with a
 * status line, then the summary and the answer in the output format asked for.
 */
export async function runFileImport<T>(ctx: Context, values: ParsedValues, file: string, kind: FileImport<T>): Promise<void> {
  const output = outputOf(ctx, values);
  const progress = progressBar('import', { enabled: ctx.progress, stream: ctx.io.stderr, unit: 'bytes' });
  let source: ImportFile;
  let size: number | undefined;
  if (file === '-') {
    if (ctx.io.stdin.isTTY) throw new UsageError(`FILE is - but standard input is a terminal: ${kind.stdinHint}, or give a path`);
    source = counted(ctx.io.stdin, (n) => progress.update(n));
  } else {
    size = fileSize(file);
    const total = size;
    source = () => counted(fs.createReadStream(file, { highWaterMark: CHUNK }), (n) => progress.update(n, total));
  }

  const client = ctx.client();
  let result;
  // A large file is a job the service runs after it has the file (202): the SDK follows it, and
  // its status is one line after the upload's bar.
  const job = statusLine('import job', { enabled: ctx.progress, stream: ctx.io.stderr });
  let uploaded = false;
  const onJobStatus = (status: string) => {
    if (!uploaded) progress.finish();
    uploaded = true;
    job.set(status === 'succeeded' || status === 'failed' ? 'done' : status);
  };
  // while it runs: its stage, and at a terminal how far it has got (the service's own count)
  const onJobProgress = (p: JobProgress) => job.set(p.stage, jobProgressDetail(p));
  ctx.showing(progress); // a retry or a slow answer is noted through the bar, not across it
  try {
    result = await sendWrite(ctx, values, (options) => kind.send(client, source, { ...options, onJobStatus, onJobProgress }));
  } catch (err) {
    if (uploaded) job.end();
    else progress.abandon();
    throw err;
  } finally {
    ctx.showing(undefined);
  }
  if (uploaded) job.end();
  else progress.finish();
  const data = result.data;
  if (output === 'table') {
    await ctx.io.out(`${kind.summary(data, size)}\n`);
  } else {
    ctx.io.err(kind.summary(data, size));
    await writeRecord(ctx.io, output, data);
  }
}

/** `--json` is `-o json`; with another -o it is a contradiction. */
function outputOf(ctx: Context, values: Record<string, unknown>): Context['format'] {
  if (!values.json) return ctx.format;
  const asked = ctx.globals.output as string | undefined;
  if (asked !== undefined && asked !== 'json') throw new UsageError(`--json and -o ${asked} contradict each other; give one`);
  return 'json';
}

/** Two lines a person reads: what was imported into what, then what happened; then a line per warning, if any. */
export function summary(data: ImportResult, size: number | undefined): string {
  const what = `${data.format}${size === undefined ? '' : ` (${formatBytes(size)})`}`;
  const where = data.scope === null ? 'no scope' : `scope ${data.scope}`;
  const counts = (['created', 'updated', 'closed', 'reopened', 'unchanged'] as const).map((k) => `${data[k]} ${k}`).join(', ');
  const warnings = (data.warnings ?? []).map((w) => `\nwarning: ${w.message} (${w.count} in the file, the first at ${w.at})`);
  return `imported ${what} into ${where}, source ${data.source}\n${counts}${warnings.join('')}`;
}

function fileSize(file: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
    fs.accessSync(file, fs.constants.R_OK);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (!stat.isFile()) throw new UsageError(`${file} is not a file (FILE is a path, or - for standard input)`);
  return stat.size;
}

/** The stream's bytes, telling `onRead` how many have been read so far (from 0 on every open). */
async function* counted(stream: AsyncIterable<unknown>, onRead: (bytes: number) => void): AsyncGenerator<Uint8Array> {
  let read = 0;
  onRead(0);
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    read += bytes.length;
    onRead(read);
    yield bytes;
  }
}
