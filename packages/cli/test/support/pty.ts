// Runs the real `compliance` command at a pseudo-terminal, as a person meets it: util-linux's
// `script` gives the child a pty of the chosen width (stty cols), so stdout and stderr are
// terminals and the command's own isTTY checks decide what it draws. Both streams arrive together,
// as on a screen, with the pty's \r\n line ends turned back into \n.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { CLI_ENTRY } from './cli.ts';

export const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

export interface PtyResult {
  code: number | null;
  /** what the terminal showed: stdout and stderr interleaved */
  screen: string;
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

export function runAtTerminal(
  args: string[],
  options: { home: string; env: Record<string, string>; columns?: number },
): Promise<PtyResult> {
  const command = `stty cols ${options.columns ?? 100} rows 50; exec ${quote(process.execPath)} ${[CLI_ENTRY, ...args].map(quote).join(' ')}`;
  const env: Record<string, string> = {
    HOME: options.home,
    XDG_CONFIG_HOME: path.join(options.home, '.config'),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'xterm',
    ...options.env,
  };
  // -e: exit with the child's code; -q: no "Script started" lines; /dev/null: no typescript file.
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (screen += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, screen: screen.replace(/\r\n/g, '\n') });
    });
  });
}
