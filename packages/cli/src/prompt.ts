// Asking for settings at a terminal, the secret without echo; reading it from the first line of
// stdin otherwise (`printf '%s\n' "$SECRET" | compliance configure …`), so it never appears on a
// command line, in the shell history or in the process list.
import readline from 'node:readline/promises';
import { InterruptedError } from './interrupt.ts';
import type { Io } from './io.ts';

export async function ask(io: Io, question: string, current?: string): Promise<string> {
  const rl = readline.createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  // readline takes Ctrl-C at a prompt itself; without this the question would never be answered.
  const cancel = new AbortController();
  rl.on('SIGINT', () => cancel.abort());
  try {
    const answer = (await rl.question(current ? `${question} [${current}]: ` : `${question}: `, { signal: cancel.signal })).trim();
    return answer === '' && current ? current : answer;
  } catch (err) {
    if (cancel.signal.aborted) throw new InterruptedError();
    throw err;
  } finally {
    rl.close();
  }
}

export function readHidden(io: Io, prompt: string): Promise<string> {
  const stdin = io.stdin;
  io.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const finish = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      io.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003') return finish(new InterruptedError());
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

export async function readFirstLine(io: Io): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.includes('\n') || text.length > 8192) break;
  }
  return text.split(/\r?\n/)[0].trim();
}
