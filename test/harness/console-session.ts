// Signing in to the console's admin API and calling it as a browser would: the session cookie and,
// unless told otherwise, the CSRF header.
import assert from 'node:assert/strict';
import { api } from './server.ts';

export const CONSOLE_PASSWORD = 'correct horse battery staple';
const UA = 'console-test/1.0';

export interface Signed {
  cookie: string;
  csrf: string;
}

export async function consoleSignIn(url: string, email: string, password = CONSOLE_PASSWORD): Promise<Signed> {
  const res = await api(url, '/console/api/session', undefined, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': UA },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { cookie: res.headers.get('set-cookie')!.split(';')[0], csrf: res.body.data.csrfToken };
}

/** A console call with the session cookie, and (unless `csrf: false`) the CSRF header. */
export function consoleCall(url: string, s: Signed, path: string, init: { method?: string; body?: unknown; csrf?: string | false } = {}) {
  const headers: Record<string, string> = { cookie: s.cookie, 'user-agent': UA };
  if (init.csrf !== false) headers['x-csrf-token'] = init.csrf ?? s.csrf;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return api(url, path, undefined, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}
