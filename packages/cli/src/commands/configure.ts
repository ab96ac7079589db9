// compliance configure [--profile NAME] [--client-id ID] [--base-url URL | --region REGION]
// Writes one profile of the credentials file, keeping the others, with mode 0600 in a directory
// of mode 0700. The file is replaced by a rename, so a reader never sees half of it, and it is
// never briefly readable by others (the new file is created with 0600 from the start).
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../args.ts';
import { parseIni, replaceSection } from '../ini.ts';
import { ConfigurationError, configPath, ENV, parseRegionBaseUrls, profileName, PROFILE_KEYS } from '../profile.ts';
import { ask, readFirstLine, readHidden } from '../prompt.ts';
import { AuthenticationError, ComplianceClient, ConnectionError, REGIONS, type Region } from '../sdk.ts';
import { UnreachableError } from '../unreachable.ts';
import type { Command } from './command.ts';

export const configureCommand: Command = {
  group: 'configure',
  summary: 'write a profile to the credentials file (the secret is prompted for, or read from stdin)',
  examples: [
    'configure',
    'configure --profile prod-writer --region eu',
    'printf \'%s\\n\' "$SECRET" | compliance configure --client-id cds_id_… --base-url https://compliance.example.com',
  ],
  options: [
    { name: 'client-id', kind: 'string', valueName: 'ID', help: 'the client ID (cds_id_…)' },
    { name: 'no-verify', kind: 'switch', help: 'save without requesting a token first (e.g. while the service is not reachable)' },
  ],
  notes: [
    'The profile is --profile NAME, else $COMPLIANCE_PROFILE, else "default"; the address is --base-url or --region.',
    'At a terminal, missing settings are asked for and the secret is typed without echo.',
    'Otherwise the secret is the first line of stdin:  printf \'%s\\n\' "$SECRET" | compliance configure --client-id ID --base-url URL',
    'An empty secret keeps the one the profile has.',
    'Before saving, it requests a token with the client ID and secret, so a typo is caught now and not on',
    'the next command; nothing is written when the service refuses them (--no-verify skips the check).',
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
    checkClientId(clientId);

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
    if (!CLIENT_SECRET.test(secret))
      throw new UsageError('that is not a client secret: it starts with cds_secret_ (the developer console shows it once, at creation)');

    if (!values['no-verify']) {
      const baseUrl = isRegion ? regionAddress(env, current, location as Region) : location.replace(/\/+$/, '');
      await verify(ctx.signal, baseUrl, clientId, secret, (text) => io.err(text));
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

/** The issued form (src/domain/auth/secrets.ts of the service): checked here so a paste error is named at once. */
const CLIENT_ID = /^cds_id_[A-Za-z0-9_-]{16}$/;
const CLIENT_SECRET = /^cds_secret_[A-Za-z0-9_-]+$/;

function checkClientId(clientId: string): void {
  if (CLIENT_ID.test(clientId)) return;
  if (clientId.startsWith('cds_secret_'))
    throw new UsageError(
      'that is the client secret; the client ID is the other value, starting with cds_id_ (the secret is asked for next)',
    );
  throw new UsageError(
    `a client ID is cds_id_ followed by 16 letters, digits, "-" or "_", as the developer console shows it; not "${clientId.slice(0, 40)}"`,
  );
}

/** A region's address from the environment or the profile being edited; none configured is refused before asking the service. */
function regionAddress(env: Record<string, string | undefined>, current: Map<string, string> | undefined, region: Region): string {
  const text = env[ENV.regionBaseUrls]?.trim() || current?.get(PROFILE_KEYS.regionBaseUrls);
  const url = parseRegionBaseUrls(text, env[ENV.regionBaseUrls]?.trim() ? ENV.regionBaseUrls : PROFILE_KEYS.regionBaseUrls)[region];
  if (!url)
    throw new ConfigurationError(
      `no address is configured for region "${region}": set ${ENV.regionBaseUrls} (e.g. ${region}=https://compliance.${region}.example.com), or use --base-url`,
    );
  return url;
}

/** Requests one token with the new settings; only a success lets the profile be written. */
async function verify(
  signal: AbortSignal,
  baseUrl: string,
  clientId: string,
  clientSecret: string,
  say: (text: string) => void,
): Promise<void> {
  const client = new ComplianceClient({ baseUrl, clientId, clientSecret, maxRetries: 1 });
  try {
    const token = await client.auth.requestToken({ signal });
    say(`checked: ${baseUrl} issued a token for ${clientId} (scopes: ${token.scope})`);
  } catch (err) {
    if (err instanceof AuthenticationError)
      throw new ConfigurationError(
        `${baseUrl} refused this client ID and secret (${err.code}: ${err.message}); nothing was written. ` +
          'Check both in the developer console (a revoked credential is refused too), or save anyway with --no-verify',
      );
    if (err instanceof ConnectionError)
      throw new UnreachableError(err, baseUrl, 'this command', 'Nothing was written; --no-verify saves without the check.');
    throw err;
  }
}

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
