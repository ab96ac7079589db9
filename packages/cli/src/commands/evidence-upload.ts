// compliance evidence upload EVIDENCE_ID --file PATH … --evidence-date DATE [--note TEXT]
// Files are checked before anything is sent (readable, at most 5, 100 MB together), then streamed
// by the SDK. The SDK reports no upload progress, so each file is handed over as a stream factory
// that counts the bytes it reads from disk; the multipart body pulls a chunk only when the
// connection takes one, so bytes read tracks bytes sent. A retry opens the files again, and the
// count restarts with it.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../args.ts';
import { writeRecord } from '../output/writer.ts';
import { formatBytes, progressBar } from '../progress.ts';
import type { UploadFile } from '../sdk.ts';
import { UPLOAD_LIMITS } from '../vocabulary.ts';
import type { Command } from './command.ts';
import { idempotencyKeyOption, sendWrite } from './writes.ts';

const CHUNK = 64 * 1024;

export const evidenceUploadCommand: Command = {
  group: 'evidence',
  action: 'upload',
  summary: 'attach files to an evidence record',
  examples: [
    'evidence upload EVIDENCE_ID --file examples/access-review.xlsx --file examples/approvals.csv --evidence-date 2026-11-20 --idempotency-key cli-upload-2026-q4-access-review',
    'evidence upload EVIDENCE_ID -f report.pdf --evidence-date now --note "Q4 penetration test"',
  ],
  args: 'EVIDENCE_ID',
  positionals: { min: 1, max: 1, name: 'EVIDENCE_ID' },
  options: [
    {
      name: 'file',
      short: 'f',
      kind: 'string',
      repeatable: true,
      valueName: 'PATH',
      help: `a file to attach; repeat for more (at most ${UPLOAD_LIMITS.files}, 100 MB together)`,
    },
    { name: 'evidence-date', kind: 'time', help: 'when the evidence was produced, not in the future (required)' },
    { name: 'note', kind: 'string', valueName: 'TEXT', help: 'a note stored with the files' },
    idempotencyKeyOption,
  ],
  notes: 'The service accepts files by extension (documents, spreadsheets, text, images, archives, …; see the API specification).',
  async run(ctx, values, [evidenceId]) {
    const paths = (values.file as string[] | undefined) ?? [];
    if (paths.length === 0) throw new UsageError('give at least one --file PATH');
    if (paths.length > UPLOAD_LIMITS.files) throw new UsageError(`at most ${UPLOAD_LIMITS.files} files per upload; got ${paths.length}`);
    const evidenceDate = values['evidence-date'] as number | undefined;
    if (evidenceDate === undefined) throw new UsageError('--evidence-date is required');
    const sizes = paths.map(fileSize);
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total > UPLOAD_LIMITS.totalBytes) throw new UsageError(`the files come to ${formatBytes(total)}; an upload takes at most 100 MB`);

    const client = ctx.client();
    const progress = progressBar('upload', { enabled: ctx.progress, stream: ctx.io.stderr, unit: 'bytes' });
    const sent = sizes.map(() => 0);
    const report = () =>
      progress.update(
        sent.reduce((a, b) => a + b, 0),
        total,
      );
    const files: UploadFile[] = paths.map((file, i) => ({
      filename: path.basename(file),
      stream: () =>
        countedRead(file, (n) => {
          sent[i] = n;
          report();
        }),
    }));
    let result;
    ctx.showing(progress); // a retry or a slow answer is noted through the bar, not across it
    try {
      result = await sendWrite(ctx, values, (options) =>
        client.evidence.uploadAttachments(evidenceId, { files, evidenceDate, note: values.note as string | undefined }, options),
      );
    } catch (err) {
      progress.abandon();
      throw err;
    } finally {
      ctx.showing(undefined);
    }
    progress.finish();
    ctx.io.err(`uploaded ${paths.length} ${paths.length === 1 ? 'file' : 'files'} (${formatBytes(total)}) to evidence ${evidenceId}`);
    await writeRecord(ctx.io, ctx.format, result.data);
  },
};

function fileSize(file: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
    fs.accessSync(file, fs.constants.R_OK);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (!stat.isFile()) throw new UsageError(`${file} is not a file`);
  return stat.size;
}

/** The file's bytes, telling `onRead` how many have been read so far (from 0 on every open). */
async function* countedRead(file: string, onRead: (bytes: number) => void): AsyncGenerator<Uint8Array> {
  let read = 0;
  onRead(0);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: CHUNK })) {
    read += (chunk as Buffer).length;
    onRead(read);
    yield chunk as Buffer;
  }
}
