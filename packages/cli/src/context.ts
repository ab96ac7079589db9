// What every command gets: the output format, the I/O, the interrupt signal, whether to draw
// progress, and the client, built on first use so that `configure` and the help work without
// credentials.
import type { OptionSpec, ParsedValues } from './args.ts';
import { UsageError, parseInteger } from './args.ts';
import type { Io } from './io.ts';
import { chooseFormat, FORMATS, type Format } from './output/format.ts';
import { ConfigurationError, resolveSettings, type Env, type Settings } from './profile.ts';
import { ComplianceClient, REGIONS, type TokenStoreOperation } from './sdk.ts';
import { fileTokenStore, TOKEN_CACHE_ENV, TokenCacheError, tokenCacheEnabled, tokenCacheFile } from './token-cache.ts';
import type { Progress } from './progress.ts';
import { waitingHooks } from './waiting.ts';
import pkg from '../package.json' with { type: 'json' };

export const GLOBAL_OPTIONS: OptionSpec[] = [
  {
    name: 'output',
    short: 'o',
    kind: 'string',
    valueName: 'FORMAT',
    values: FORMATS,
    help: 'output format; default table at a terminal, else json',
  },
  {
    name: 'profile',
    kind: 'string',
    valueName: 'NAME',
    help: 'profile of the credentials file (default: $COMPLIANCE_PROFILE or "default")',
  },
  { name: 'base-url', kind: 'string', valueName: 'URL', help: 'the service address, overriding the environment and the profile' },
  { name: 'region', kind: 'string', valueName: 'REGION', values: REGIONS, help: 'the hosted service of a region, instead of --base-url' },
  { name: 'max-retries', kind: 'integer', help: 'retries of a failed request (default 3, or $COMPLIANCE_MAX_RETRIES)' },
  { name: 'timeout', kind: 'integer', valueName: 'SECONDS', help: 'time allowed for one attempt (default 60, or $COMPLIANCE_TIMEOUT)' },
  { name: 'progress', kind: 'switch', help: 'draw progress on stderr even when it is not a terminal' },
  { name: 'no-progress', kind: 'switch', help: 'never draw progress' },
  { name: 'no-token-cache', kind: 'switch', help: `neither read nor write the access token cache (also ${TOKEN_CACHE_ENV}=0)` },
  { name: 'help', short: 'h', kind: 'switch', help: 'show help' },
];

export interface Context {
  io: Io;
  env: Env;
  format: Format;
  /** the global options as given (configure writes --base-url/--region/--profile rather than using them) */
  globals: ParsedValues;
  signal: AbortSignal;
  /** draw progress bars on stderr */
  progress: boolean;
  /** a message about a wait (a retry, a slow answer) at a terminal, through the progress bar being drawn if any */
  notice(text: string): void;
  /** the progress bar being drawn, which notices go through; undefined when it ends */
  showing(progress: Progress | undefined): void;
  /** the client (resolves the credentials on first use) */
  client(): ComplianceClient;
  settings(): Settings;
  /** the address in use, once the client exists */
  baseUrl(): string | undefined;
}

export function createContext(io: Io, env: Env, globals: ParsedValues, signal: AbortSignal): Context {
  const format = chooseFormat(globals.output as string | undefined, io.stdoutIsTty);
  const progress = globals['no-progress'] ? false : Boolean(globals.progress) || io.stderrIsTty;
  const maxRetries = (globals['max-retries'] as number | undefined) ?? envInteger(env, 'COMPLIANCE_MAX_RETRIES');
  const timeoutSec = (globals.timeout as number | undefined) ?? envInteger(env, 'COMPLIANCE_TIMEOUT');
  if (maxRetries !== undefined && maxRetries < 0) throw new UsageError('--max-retries must be 0 or more');
  if (timeoutSec !== undefined && timeoutSec <= 0) throw new UsageError('--timeout must be more than 0 seconds');
  const cacheTokens = tokenCacheEnabled(env, Boolean(globals['no-token-cache']));

  let settings: Settings | undefined;
  let client: ComplianceClient | undefined;
  let bar: Progress | undefined;
  const notice = (text: string) => {
    if (!progress) return;
    if (bar) bar.note(text);
    else io.err(text);
  };
  const getSettings = () =>
    (settings ??= resolveSettings({
      env,
      profile: globals.profile as string | undefined,
      baseUrl: globals['base-url'] as string | undefined,
      region: globals.region as string | undefined,
    }));
  return {
    io,
    env,
    format,
    globals,
    signal,
    progress,
    notice,
    showing: (p) => {
      bar = p;
    },
    settings: getSettings,
    baseUrl: () => client?.baseUrl,
    client() {
      if (client) return client;
      const s = getSettings();
      try {
        // The cache file is named after the address as the SDK resolved it, known once the client exists.
        let baseUrl = '';
        const tokenStore = cacheTokens
          ? fileTokenStore(() => tokenCacheFile(env, { baseUrl, clientId: s.clientId, clientSecret: s.clientSecret }))
          : undefined;
        client = new ComplianceClient({
          clientId: s.clientId,
          clientSecret: s.clientSecret,
          ...(s.baseUrl !== undefined ? { baseUrl: s.baseUrl } : { region: s.region }),
          maxRetries,
          timeoutMs: timeoutSec === undefined ? undefined : timeoutSec * 1000,
          tokenStore,
          onTokenStoreError: (err, operation) => io.err(`compliance: warning: ${describeCacheError(err, operation)}`),
          ...waitingHooks(notice),
          userAgent: `compliance-cli/${pkg.version}`,
        });
        baseUrl = client.baseUrl;
      } catch (err) {
        // The SDK checks the address (a URL, http or https, no query); say where it came from.
        if (err instanceof TypeError) throw new ConfigurationError(`${err.message} (from ${s.sources.location})`);
        throw err;
      }
      return client;
    },
  };
}

/** A token cache that cannot be used costs a token request, never the command: say why, once. */
function describeCacheError(err: unknown, operation: TokenStoreOperation): string {
  if (err instanceof TokenCacheError) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  const what = { load: 'read', save: 'write', clear: 'remove' }[operation];
  return `cannot ${what} the token cache: ${message} (--no-token-cache or ${TOKEN_CACHE_ENV}=0 turns it off)`;
}

function envInteger(env: Env, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value.trim() === '') return undefined;
  return parseInteger(`$${name}`, value);
}
