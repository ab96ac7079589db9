// Access tokens kept between runs, so a shell loop of `compliance` commands does not spend the
// token endpoint's 10 requests a minute per credential (tokens live an hour). One JSON file per
// credential and service address in $XDG_CACHE_HOME/compliance/ (default ~/.cache/compliance/),
// named by a SHA-256 of the address, client ID and secret: a changed secret never picks up an old
// token, and the name tells nothing. The file holds a bearer token, so it is treated like the
// credentials file: written with mode 0600 in a directory of mode 0700, replaced atomically, and
// ignored when others may read or write it or another user owns it. The SDK decides when a stored
// token is still good, saves new ones and clears the file when the credential is revoked; a cache
// that cannot be read or written only costs a token request.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseBoolean, UsageError } from './args.ts';
import { privacyProblem, type Env } from './profile.ts';
import type { StoredToken, TokenStore } from './sdk.ts';

export const TOKEN_CACHE_ENV = 'COMPLIANCE_TOKEN_CACHE';

const nonEmpty = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());

/** $XDG_CACHE_HOME/compliance, else ~/.cache/compliance. */
export function tokenCacheDir(env: Env): string {
  const home = nonEmpty(env.HOME) ?? os.homedir();
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache');
  return path.join(base, 'compliance');
}

/** The cache file of one credential at one address. */
export function tokenCacheFile(env: Env, key: { baseUrl: string; clientId: string; clientSecret: string }): string {
  const hash = createHash('sha256').update(`${key.baseUrl}\n${key.clientId}\n${key.clientSecret}`).digest('hex');
  return path.join(tokenCacheDir(env), `${hash}.json`);
}

/** Whether the cache is on: not with --no-token-cache or COMPLIANCE_TOKEN_CACHE=0 (false, no). */
export function tokenCacheEnabled(env: Env, noTokenCacheFlag: boolean): boolean {
  if (noTokenCacheFlag) return false;
  const value = nonEmpty(env[TOKEN_CACHE_ENV]);
  if (value === undefined) return true;
  try {
    return parseBoolean(`$${TOKEN_CACHE_ENV}`, value);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`$${TOKEN_CACHE_ENV} takes 1 or 0 (true/false, yes/no), not "${value}"`);
    throw err;
  }
}

/** Why a cache file was not used; `missing` is the normal first run and not worth a word. */
export class TokenCacheError extends Error {
  override name = 'TokenCacheError';
}

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** The store of the cache file `file` (or of the file a function names when first needed). */
export function fileTokenStore(fileOrGetter: string | (() => string)): TokenStore {
  let resolved: string | undefined;
  const fileOf = () => (resolved ??= typeof fileOrGetter === 'string' ? fileOrGetter : fileOrGetter());
  return {
    load(): StoredToken | undefined {
      const file = fileOf();
      let fd: number;
      try {
        // Not through a symbolic link: the file must be ours, where we put it.
        fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
        if (code === 'ELOOP') throw new TokenCacheError(`ignoring the token cache ${file}: it is a symbolic link`);
        throw new TokenCacheError(`cannot read the token cache ${file}: ${(err as Error).message}`);
      }
      try {
        const stat = fs.fstatSync(fd);
        if (!stat.isFile()) throw new TokenCacheError(`ignoring the token cache ${file}: it is not a file`);
        // The credentials file's rule (profile.ts); a cache file that breaks it is ignored, not fatal,
        // and the next token saved replaces it with a private one.
        const problem = privacyProblem(stat);
        if (problem && 'owner' in problem)
          throw new TokenCacheError(`ignoring the token cache ${file}: it belongs to another user (uid ${problem.owner})`);
        if (problem)
          throw new TokenCacheError(
            `ignoring the token cache ${file}: its permissions ${problem.mode} are too open (others could read the access token)`,
          );
        let value: unknown;
        try {
          value = JSON.parse(fs.readFileSync(fd, 'utf8'));
        } catch (err) {
          throw new TokenCacheError(`ignoring the token cache ${file}: ${(err as Error).message}`);
        }
        return value as StoredToken;
      } finally {
        fs.closeSync(fd);
      }
    },

    save(token: StoredToken): void {
      const file = fileOf();
      const dir = path.dirname(file);
      fs.mkdirSync(path.dirname(dir), { recursive: true });
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const dirStat = fs.statSync(dir);
      if (!dirStat.isDirectory()) throw new TokenCacheError(`cannot write the token cache: ${dir} is not a directory`);
      const uid = process.getuid?.();
      if (process.platform !== 'win32' && dirStat.mode & 0o077 && (uid === undefined || dirStat.uid === uid)) fs.chmodSync(dir, 0o700);
      const record: StoredToken = {
        accessToken: token.accessToken,
        tokenType: token.tokenType,
        scope: token.scope,
        expiresAt: token.expiresAt,
        ...(token.issuedAt !== undefined ? { issuedAt: token.issuedAt } : {}),
      };
      const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
      try {
        // Created with 0600 from the start, so the token is never readable by others, not even briefly.
        fs.writeFileSync(temp, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
        fs.chmodSync(temp, 0o600);
        fs.renameSync(temp, file);
      } catch (err) {
        fs.rmSync(temp, { force: true });
        throw err;
      }
    },

    clear(): void {
      fs.rmSync(fileOf(), { force: true });
    },
  };
}
