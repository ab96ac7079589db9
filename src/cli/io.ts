// Where a command writes: results to `out` (stdout), messages and errors to `err` (stderr).
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}
