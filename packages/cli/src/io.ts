// stdout carries the command's result and nothing else (so `> file` and pipes get clean JSON);
// messages, warnings and progress go to stderr. Writes to stdout wait for the pipe to drain, so a
// long listing piped into a slow reader is not buffered in memory.
export interface Io {
  /** the result; resolves when the pipe can take more */
  out(text: string): Promise<void>;
  /** a message for the user */
  err(text: string): void;
  stdoutIsTty: boolean;
  stderrIsTty: boolean;
  /** the width tables are fitted to: the terminal's, else COLUMNS, else 80 (terminalWidth) */
  stdoutColumns: number | undefined;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
}

export function processIo(): Io {
  const { stdout, stderr, stdin } = process;
  return {
    out: (text) =>
      new Promise((resolve, reject) => {
        const ok = stdout.write(text, (err) => (err ? reject(err) : undefined));
        if (ok) resolve();
        else stdout.once('drain', resolve);
      }),
    err: (text) => {
      stderr.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    stdoutIsTty: Boolean(stdout.isTTY),
    stderrIsTty: Boolean(stderr.isTTY),
    stdoutColumns: terminalWidth(stdout, process.env.COLUMNS),
    stderr,
    stdin,
  };
}

/**
 * The width to fit tables to: the terminal's when stdout is one; otherwise COLUMNS (as shells and
 * `gh` honour it, e.g. `COLUMNS=200 compliance controls list -o table > file`), else 80.
 */
export function terminalWidth(stdout: { isTTY?: boolean; columns?: number }, columnsEnv: string | undefined): number {
  if (stdout.isTTY && (stdout.columns ?? 0) > 0) return stdout.columns!;
  const fromEnv = Number(columnsEnv);
  return Number.isSafeInteger(fromEnv) && fromEnv > 0 ? fromEnv : 80;
}
