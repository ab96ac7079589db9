// Where the credential and the service address come from. Environment variables override the
// profile file, setting by setting, and flags override both for the address. The secret is read
// only from the environment or the file, never from a flag, where it would be visible in the
// process list and the shell history. Like ssh with its keys, a profile file that others can read
// is refused: a leaked secret reads (or writes) the organization's compliance data.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseIni, type IniSections } from './ini.ts';
import { REGIONS, type Region } from './sdk.ts';

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

export const ENV = {
  clientId: 'COMPLIANCE_CLIENT_ID',
  clientSecret: 'COMPLIANCE_CLIENT_SECRET',
  baseUrl: 'COMPLIANCE_BASE_URL',
  region: 'COMPLIANCE_REGION',
  regionBaseUrls: 'COMPLIANCE_REGION_BASE_URLS',
  profile: 'COMPLIANCE_PROFILE',
  config: 'COMPLIANCE_CONFIG',
} as const;

/** The keys of a profile in the file. */
export const PROFILE_KEYS = {
  clientId: 'client_id',
  clientSecret: 'client_secret',
  baseUrl: 'base_url',
  region: 'region',
  regionBaseUrls: 'region_base_urls',
} as const;

export const DEFAULT_PROFILE = 'default';

export type Env = Record<string, string | undefined>;

export interface Settings {
  clientId: string;
  clientSecret: string;
  baseUrl?: string;
  region?: Region;
  /** the profile used, when the file was read */
  profile?: string;
  file: string;
  /** which settings came from where, for `whoami` (never the values of secrets) */
  sources: Record<'clientId' | 'clientSecret' | 'location', string>;
}

export interface ResolveInput {
  env: Env;
  /** --profile */
  profile?: string;
  /** --base-url / --region */
  baseUrl?: string;
  region?: string;
}

const nonEmpty = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());

/** $COMPLIANCE_CONFIG, else $XDG_CONFIG_HOME/compliance/credentials, else ~/.config/compliance/credentials. */
export function configPath(env: Env): string {
  const explicit = nonEmpty(env[ENV.config]);
  if (explicit) return path.resolve(explicit);
  const home = nonEmpty(env.HOME) ?? os.homedir();
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config');
  return path.join(base, 'compliance', 'credentials');
}

/** The profile name asked for, and whether it was asked for explicitly. */
export function profileName(input: Pick<ResolveInput, 'env' | 'profile'>): { name: string; explicit: boolean } {
  const name = nonEmpty(input.profile) ?? nonEmpty(input.env[ENV.profile]);
  return name ? { name, explicit: true } : { name: DEFAULT_PROFILE, explicit: false };
}

/** Why a file is not private: another user owns it (root may), or group or others may read or write it. */
export function privacyProblem(stat: fs.Stats): { owner: number } | { mode: string } | undefined {
  if (process.platform === 'win32') return undefined;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) return { owner: stat.uid };
  if (stat.mode & 0o077) return { mode: (stat.mode & 0o777).toString(8).padStart(4, '0') };
  return undefined;
}

/** Refuses a file that group or others may read or write, or that another user owns. */
export function checkFileIsPrivate(file: string, stat: fs.Stats): void {
  const problem = privacyProblem(stat);
  if (problem && 'owner' in problem) {
    throw new ConfigurationError(`${file} belongs to another user (uid ${problem.owner}); refusing to read credentials from it`);
  }
  if (problem) {
    throw new ConfigurationError(
      `permissions ${problem.mode} for ${file} are too open: others could read the client secret. ` + `Run: chmod 600 '${file}'`,
    );
  }
}

/** Every profile in the file, or undefined when there is no file. */
export function readProfiles(file: string): IniSections | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigurationError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (!stat.isFile()) throw new ConfigurationError(`${file} is not a file`);
  checkFileIsPrivate(file, stat);
  try {
    return parseIni(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigurationError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

export function resolveSettings(input: ResolveInput): Settings {
  const { env } = input;
  const file = configPath(env);
  const { name, explicit } = profileName(input);
  const fromEnv = {
    clientId: nonEmpty(env[ENV.clientId]),
    clientSecret: nonEmpty(env[ENV.clientSecret]),
    baseUrl: nonEmpty(env[ENV.baseUrl]),
    region: nonEmpty(env[ENV.region]),
  };
  const fromFlags = { baseUrl: nonEmpty(input.baseUrl), region: nonEmpty(input.region) };
  const envComplete =
    fromEnv.clientId && fromEnv.clientSecret && (fromEnv.baseUrl || fromEnv.region || fromFlags.baseUrl || fromFlags.region);

  // The file is read only when it is needed, so a complete environment works even beside a
  // broken or unsafe file; a profile named on purpose is always read.
  let profile: Map<string, string> | undefined;
  if (!envComplete || explicit) {
    const profiles = readProfiles(file);
    profile = profiles?.get(name);
    if (explicit && !profile) {
      throw new ConfigurationError(
        profiles ? `profile "${name}" is not in ${file}` : `profile "${name}" requested, but ${file} does not exist`,
      );
    }
    for (const key of profile?.keys() ?? []) {
      if (!(Object.values(PROFILE_KEYS) as string[]).includes(key)) {
        throw new ConfigurationError(
          `unknown setting "${key}" in profile "${name}" of ${file}; known: ${Object.values(PROFILE_KEYS).join(', ')}`,
        );
      }
    }
  }
  const fromFile = {
    clientId: nonEmpty(profile?.get(PROFILE_KEYS.clientId)),
    clientSecret: nonEmpty(profile?.get(PROFILE_KEYS.clientSecret)),
    baseUrl: nonEmpty(profile?.get(PROFILE_KEYS.baseUrl)),
    region: nonEmpty(profile?.get(PROFILE_KEYS.region)),
    regionBaseUrls: nonEmpty(profile?.get(PROFILE_KEYS.regionBaseUrls)),
  };
  const profileLabel = `profile "${name}" (${file})`;

  const clientId = fromEnv.clientId ?? fromFile.clientId;
  const clientSecret = fromEnv.clientSecret ?? fromFile.clientSecret;
  if (!clientId || !clientSecret) {
    const missing = [!clientId && ENV.clientId, !clientSecret && ENV.clientSecret].filter(Boolean).join(' and ');
    throw new ConfigurationError(
      `no credentials configured: set ${missing}, or run "compliance configure" to write ${profile ? profileLabel : `a profile to ${file}`}`,
    );
  }

  // The address is one setting given as a URL or a region: the first level that sets either wins.
  const levels: Array<[{ baseUrl: string; region: string }, { baseUrl?: string; region?: string }]> = [
    [{ baseUrl: '--base-url', region: '--region' }, fromFlags],
    [{ baseUrl: ENV.baseUrl, region: ENV.region }, fromEnv],
    [{ baseUrl: profileLabel, region: profileLabel }, fromFile],
  ];
  const level = levels.find(([, l]) => l.baseUrl || l.region);
  if (!level) {
    throw new ConfigurationError(
      `no service address configured: set ${ENV.baseUrl} (or ${ENV.region}: ${REGIONS.join(', ')}), or base_url in the profile`,
    );
  }
  const [names, location] = level;
  const where = location.baseUrl ? names.baseUrl : names.region;
  if (location.baseUrl && location.region) {
    const both = names.baseUrl === names.region ? names.baseUrl : `${names.baseUrl} and ${names.region}`;
    throw new ConfigurationError(`${both} set both a base URL and a region; give one`);
  }
  let baseUrl = location.baseUrl;
  let addressFrom = where;
  if (location.region) {
    if (!(REGIONS as readonly string[]).includes(location.region))
      throw new ConfigurationError(`${where}: region must be one of ${REGIONS.join(', ')}, not "${location.region}"`);
    // The spec names no hostnames, so a region means nothing until its address is configured; a
    // made-up default would only fail later, after the retries, with a host-not-found error.
    const fromEnvUrls = nonEmpty(env[ENV.regionBaseUrls]);
    const urlsFrom = fromEnvUrls ? ENV.regionBaseUrls : `${PROFILE_KEYS.regionBaseUrls} of ${profileLabel}`;
    const urls = parseRegionBaseUrls(fromEnvUrls ?? fromFile.regionBaseUrls, urlsFrom);
    baseUrl = urls[location.region as Region];
    addressFrom = `${where} (region ${location.region}; its address from ${urlsFrom})`;
    if (!baseUrl) {
      throw new ConfigurationError(
        `${where} asks for region "${location.region}", but no address is configured for it: set ${ENV.regionBaseUrls} ` +
          `(e.g. ${location.region}=https://compliance.${location.region}.example.com), or ${PROFILE_KEYS.regionBaseUrls} in the profile, ` +
          'or give the address itself with --base-url or COMPLIANCE_BASE_URL',
      );
    }
  }

  return {
    clientId,
    clientSecret,
    baseUrl,
    region: location.region as Region | undefined,
    profile: profile ? name : undefined,
    file,
    sources: {
      clientId: fromEnv.clientId ? ENV.clientId : profileLabel,
      clientSecret: fromEnv.clientSecret ? ENV.clientSecret : profileLabel,
      location: addressFrom,
    },
  };
}

/** `eu=https://…,us=https://…` (commas or spaces between entries) as a map; a bad entry is refused, naming `source`. */
export function parseRegionBaseUrls(text: string | undefined, source: string): Partial<Record<Region, string>> {
  const urls: Partial<Record<Region, string>> = {};
  for (const entry of (text ?? '').split(/[\s,]+/).filter(Boolean)) {
    const at = entry.indexOf('=');
    const region = entry.slice(0, at).trim();
    const url = entry.slice(at + 1).trim();
    if (at < 1 || !(REGIONS as readonly string[]).includes(region) || !/^https?:\/\/\S+$/.test(url)) {
      throw new ConfigurationError(
        `${source}: each entry is REGION=URL with REGION one of ${REGIONS.join(', ')} and an http(s) URL; not "${entry}"`,
      );
    }
    urls[region as Region] = url;
  }
  return urls;
}
