// A command line `cds` cannot act on: exit 2 (exit-codes.ts). `usage` is the help to print after
// the message; set for mistakes in the words and flags, unset for ones found later (a password
// typed twice differently, an organization name two organizations share).
export class UsageError extends Error {
  override name = 'UsageError';
  usage?: string;
  constructor(message: string, usage?: string) {
    super(message);
    this.usage = usage;
  }
}
