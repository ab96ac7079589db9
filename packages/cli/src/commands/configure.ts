// compliance configure [--profile NAME] [--client-id ID] [--base-url URL | --region REGION]
// Writes one profile of the credentials file, keeping the others, with mode 0600 in a directory
// of mode 0700. The file is replaced by a rename, so a reader never sees half of it, and it is
// never briefly readable by others (the new file is created with 0600 from the start).
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../args.ts';
import { parseIni, replaceSection } from '../ini.ts';
import { configPath, profileName, PROFILE_KEYS } from '../profile.ts';
import { ask, readFirstLine, readHidden } from '../prompt.ts';
import { REGIONS } from '../sdk.ts';
import type { Command } from './command.ts';

export const configureCommand: Command = {
  group: 'configure',
  summary: 'write a profile to the credentials file (the secret is prompted for, or read from stdin)',
  options: [{ name: 'client-id', kind: 'string', valueName: 'ID', help: 'the client ID (cds_id_…)' }],
  notes: [
    'The profile is --profile NAME, else $COMPLIANCE_PROFILE, else "default"; the address is --base-url or --region.',
    'At a terminal, missing settings are asked for and the secret is typed without echo.',
    'Otherwise the secret is the first line of stdin:  printf \'%s\\n\' "$SECRET" | compliance configure --client-id ID --base-url URL',
    'An empty secret keeps the one the profile has.',
  ].join('\n'),
  async run(ctx, values) {
    const { io, env } = ctx;
    const file = configPath(env);
    const { name } = profileName({ env, profile: ctx.globals.profile as string | undefined });
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new UsageError(`profile names take A-Z a-z 0-9 . _ -; not "${name}"`);
    // Read without the permission check: this command is also how a too-open file gets fixed.
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    let current: Map<string, string> | undefined;
    try {
      current = parseIni(text).get(name);
    } catch (err) {
      throw new UsageError(`${file} cannot be read as a profile file (${(err as Error).message}); fix or remove it first`);
    }
    const interactive = Boolean(io.stdin.isTTY) && io.stderrIsTty;

    let clientId = (values['client-id'] as string | undefined) ?? current?.get(PROFILE_KEYS.clientId);
    if (interactive && values['client-id'] === undefined) clientId = await ask(io, 'Client ID', clientId);
    if (!clientId || /\s/.test(clientId)) throw new UsageError('a client ID is required (--client-id)');

    const flagLocation = (ctx.globals['base-url'] ?? ctx.globals.region) as string | undefined;
    let location = flagLocation ?? current?.get(PROFILE_KEYS.baseUrl) ?? current?.get(PROFILE_KEYS.region);
    if (interactive && flagLocation === undefined) location = await ask(io, `Base URL, or region (${REGIONS.join(', ')})`, location);
    if (!location) throw new UsageError('a service address is required (--base-url URL or --region REGION)');
    const isRegion = (REGIONS as readonly string[]).includes(location);
    if (ctx.globals.region !== undefined && !isRegion) throw new UsageError(`--region takes ${REGIONS.join(', ')}; not "${location}"`);
    if (!isRegion && !/^https?:\/\/[^\s]+$/.test(location)) throw new UsageError(`the base URL must be an http(s) URL; not "${location}"`);

    const existingSecret = current?.get(PROFILE_KEYS.clientSecret);
    let secret = interactive
      ? await readHidden(io, existingSecret ? 'Client secret (empty keeps the current one): ' : 'Client secret: ')
      : await readFirstLine(io);
    secret = secret.trim();
    if (secret === '' && existingSecret) secret = existingSecret;
    if (secret === '' || /\s/.test(secret)) {
      throw new UsageError(interactive ? 'a client secret is required' : 'a client secret is required on the first line of stdin');
    }

    const entries: Array<[string, string]> = [
      [PROFILE_KEYS.clientId, clientId],
      [PROFILE_KEYS.clientSecret, secret],
      isRegion ? [PROFILE_KEYS.region, location] : [PROFILE_KEYS.baseUrl, location.replace(/\/+$/, '')],
    ];
    writePrivate(file, replaceSection(text, name, entries));
    io.err(`wrote profile "${name}" to ${file} (mode 0600)`);
    io.err(`check it with: compliance whoami${name === 'default' ? '' : ` --profile ${name}`}`);
  },
};

function writePrivate(file: string, text: string): void {
  const dir = path.dirname(file);
  // Only our own directory is made private; a missing ~/.config is created as usual.
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    fs.chmodSync(temp, 0o600); // in case the umask took bits away that 0600 needs
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}
