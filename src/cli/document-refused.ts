// A program document refused, with every problem already written as `file:line:column: /pointer
// message` (src/cli/commands/program.ts); report-error.ts prints it as it is, exit status 1.
export class DocumentRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentRefused';
  }
}
