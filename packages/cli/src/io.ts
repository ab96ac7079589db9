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
  /** the terminal's width when stdout is one (tables are fitted to it) */
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
    stdoutColumns: stdout.isTTY && stdout.columns > 0 ? stdout.columns : undefined,
    stderr,
    stdin,
  };
}
