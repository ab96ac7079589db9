// The console's session cookie and its guards, for every /console/api route:
// - a cross-site request (Origin of another site, or Sec-Fetch-Site: cross-site) is refused;
// - routes marked `console: 'session'` need a live session cookie (401 otherwise);
// - every such request that changes something also needs the X-CSRF-Token header matching the
//   session (403 otherwise). The SameSite=Strict cookie already keeps other sites out; the token
//   is the second, independent line (and covers browsers or proxies that mishandle SameSite).
// Cookies are read and written by @fastify/cookie (docs/dependencies.md), parsing only on the
// console's routes: the API's requests carry no cookie worth reading.
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdminActor, SystemContext } from '../../domain/context.ts';
import { ServiceError } from '../../shared/errors.ts';
import { adminActor, csrfMatches, type Origin } from '../../domain/console/session.ts';
import type { SignedInAdmin } from '../../domain/console/schema.ts';
import { resolveSession } from '../../domain/console/resolve-session.ts';

export const SESSION_COOKIE = 'cds_console';
const COOKIE_PATH = '/console';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** a /console/api route: 'public' (sign-in) or 'session' (needs a signed-in administrator) */
    console?: 'public' | 'session';
  }
  interface FastifyRequest {
    consoleSession?: SignedInAdmin;
    /** the raw session token of the cookie, kept to check the CSRF token */
    consoleToken?: string;
  }
}

/** The session cookie's attributes: only the console's paths, never script-readable, never sent cross-site. */
function cookieOptions(request: FastifyRequest, maxAgeSec: number) {
  return {
    path: COOKIE_PATH,
    maxAge: maxAgeSec,
    httpOnly: true,
    sameSite: 'strict' as const,
    // whenever the request came over TLS (directly, or via a trusted proxy's X-Forwarded-Proto)
    secure: request.protocol === 'https',
  };
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSec: number) {
  reply.setCookie(SESSION_COOKIE, token, cookieOptions(request, maxAgeSec));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply) {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request, 0));
}

export const originOf = (request: FastifyRequest): Origin => ({
  ip: request.ip ?? null,
  userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
});

function isCrossSite(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== request.host;
  } catch {
    return true; // "null" and other opaque origins
  }
}

export function registerConsoleSession(app: FastifyInstance, { system }: { system: SystemContext }) {
  // hook: false: no parsing on every request; the console's hook below reads its one cookie
  app.register(fastifyCookie, { hook: false });
  // Only the console's routes carry the hook: the API's requests have nothing to check here.
  app.addHook('onRoute', (route) => {
    if (!route.config?.console) return;
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [...existing, checkConsoleRequest];
  });
  const checkConsoleRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    const mode = request.routeOptions.config?.console;
    if (!mode) return;
    reply.header('Cache-Control', 'no-store');
    if (!SAFE_METHODS.has(request.method) && isCrossSite(request)) {
      throw new ServiceError('forbidden', 'Cross-site requests to the console are refused.');
    }
    if (mode !== 'session') return;
    const token = request.headers.cookie === undefined ? undefined : app.parseCookie(request.headers.cookie)[SESSION_COOKIE];
    request.consoleSession = await resolveSession({ ctx: system, input: { token } });
    request.consoleToken = token;
    if (!SAFE_METHODS.has(request.method)) {
      const presented = request.headers['x-csrf-token'];
      if (!csrfMatches(token!, typeof presented === 'string' ? presented : undefined)) {
        throw new ServiceError('forbidden', 'The X-CSRF-Token header is missing or does not match the session.');
      }
    }
  };
}

/** The signed-in administrator of a `console: 'session'` route (set by the hook above). */
export function consoleSessionOf(request: FastifyRequest): SignedInAdmin {
  if (!request.consoleSession) throw new ServiceError('unauthorized', 'Sign in to use the console.');
  return request.consoleSession;
}

/** The context of a console verb: the system context, acting as the signed-in administrator. */
export function adminContextOf(system: SystemContext, request: FastifyRequest): SystemContext & { actor: AdminActor } {
  return { ...system, actor: adminActor(consoleSessionOf(request), originOf(request)) };
}
