// A one-line progress bar on stderr, in the style of the admin command's (src/cli/progress.ts):
// `label [#####-----] 50% (250/500)`. At a terminal it redraws in place, at most ten times a
// second and only after a moment (no flicker for quick steps), and always ends with the final
// state, so the scrollback shows what was done. Forced with --progress when stderr is not a terminal (a CI log), it writes a plain line
// at most once a second instead of carriage-return redraws that logs would garble.
import type { JobProgress } from './sdk.ts';

export interface ProgressOptions {
  enabled: boolean;
  stream: NodeJS.WriteStream;
  /** counts of records, or bytes (shown as KiB/MiB) */
  unit?: 'records' | 'bytes';
}

export interface Progress {
  update(done: number, total?: number): void;
  /** draws the final state and ends the line */
  finish(): void;
  /** ends the line without drawing (on failure) */
  abandon(): void;
  /** a message between redraws (a wait for the rate limit) */
  note(text: string): void;
}

const WIDTH = 30;

export function progressBar(label: string, options: ProgressOptions): Progress {
  const { enabled, stream } = options;
  const tty = Boolean(stream.isTTY);
  const started = Date.now();
  let last = 0;
  let drawn = false;
  let lastText = '';
  let state = { done: 0, total: undefined as number | undefined };

  const render = () => {
    const { done, total } = state;
    const amount = (n: number) => (options.unit === 'bytes' ? formatBytes(n) : String(n));
    if (total === undefined || total <= 0) return `${label} ${amount(done)}`;
    const ratio = Math.min(1, done / total);
    const filled = Math.round(ratio * WIDTH);
    return `${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${Math.floor(ratio * 100)}% (${amount(done)}/${amount(total)})`;
  };
  const draw = () => {
    const text = render();
    if (!tty && text === lastText) return;
    drawn = true;
    lastText = text;
    if (tty) stream.write(`\r${text}\x1b[K`);
    else stream.write(`${text}\n`);
  };

  return {
    update(done, total) {
      state = { done, total: total ?? state.total };
      if (!enabled) return;
      const now = Date.now();
      if (tty ? now - started < 300 || now - last < 100 : now - last < 1000) return;
      last = now;
      draw();
    },
    finish() {
      if (!enabled) return;
      draw();
      if (tty) stream.write('\n');
    },
    abandon() {
      if (enabled && tty && drawn) stream.write('\n');
    },
    note(text) {
      if (!enabled) return;
      stream.write(tty ? `\r${text}\x1b[K\n` : `${text}\n`);
      if (tty && drawn) stream.write(render());
    },
  };
}

/**
 * One line of words on stderr for a wait the service measures in its own words (a job it runs:
 * `queued`, `checking`, `writing`, `done`, with a count as `detail`): redrawn in place at a terminal,
 * a plain line per change of `text` (its detail left out) when forced with --progress elsewhere, so
 * a CI log gets a line per stage and not one per count; nothing when progress is off (a pipe).
 */
export function statusLine(
  label: string,
  options: Omit<ProgressOptions, 'unit'>,
): { set(text: string, detail?: string): void; end(): void } {
  const { enabled, stream } = options;
  const tty = Boolean(stream.isTTY);
  let shown: string | undefined;
  let shownDetail: string | undefined;
  return {
    set(text, detail) {
      if (!enabled || (text === shown && (!tty || detail === shownDetail))) return;
      shown = text;
      shownDetail = detail;
      stream.write(tty ? `\r${label} ${text}${detail ? ` ${detail}` : ''}\x1b[K` : `${label} ${text}\n`);
    },
    end() {
      if (enabled && tty && shown !== undefined) stream.write('\n');
      shown = undefined;
    },
  };
}

/** A job's count as a terminal shows it: `12,000 findings`, then `8,000 of 20,000 findings (40%)`. */
export function jobProgressDetail(p: JobProgress): string {
  const n = (v: number) => v.toLocaleString('en-US');
  if (p.stage === 'checking' || p.total === null) return `${n(p.parsed)} findings`;
  const percent = p.total === 0 ? 100 : Math.floor((p.written / p.total) * 100);
  return `${n(p.written)} of ${n(p.total)} findings (${percent}%)`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}
