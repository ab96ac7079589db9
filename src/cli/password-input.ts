// Reads an administrator's password: asked twice at a terminal without echo, or read from the
// first line of stdin when it is a pipe (`printf '%s\n' "$PW" | cds admin create …`), so the
// password never appears in the command line or the shell history.
import { UsageError } from './usage-error.ts';

function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const finish = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003') return finish(new UsageError('Cancelled.'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function readFirstLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk.toString('utf8');
    if (text.includes('\n') || text.length > 4096) break;
  }
  return text.split(/\r?\n/)[0];
}

export async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) return readFirstLine();
  const first = await readHidden('Password (at least 12 characters): ');
  const second = await readHidden('Repeat the password: ');
  if (first !== second) throw new UsageError('The passwords do not match.');
  return first;
}
