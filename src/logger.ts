// pino options: JSON lines (or pino-pretty's readable lines at a terminal), the request ID on each,
// credentials and tokens never written.
import type { FastifyServerOptions } from 'fastify';
import pretty from 'pino-pretty';
import type { LogFormat } from './config.ts';

/** The format `auto` stands for on this process's stdout. */
export const resolveLogFormat = (format: LogFormat, stdoutIsTerminal: boolean): 'json' | 'pretty' =>
  format === 'auto' ? (stdoutIsTerminal ? 'pretty' : 'json') : format;

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
type Level = (typeof LEVELS)[number];

/**
 * The level of routes polled or fetched often (/healthz, /readyz, static assets): their requests
 * are logged only when the service logs at debug (or trace), but their warnings and errors always.
 */
export function quietLogLevel(level: string): Level {
  const rank = LEVELS.indexOf(level as Level);
  if (rank === -1) return 'warn'; // a custom level: pino refused it at start-up already
  if (rank <= LEVELS.indexOf('debug')) return level as Level;
  return rank < LEVELS.indexOf('warn') ? 'warn' : (level as Level);
}

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'client_secret',
  'clientSecret',
  'access_token',
  'password',
  '*.client_secret',
  '*.clientSecret',
  '*.access_token',
  '*.password',
];

const MAX_PATH = 256;
const MAX_QUERY_PARAMS = 20;
const MAX_NAME = 64;
const MAX_VALUE = 100;

/** What the `req` serializer reads: a Fastify request (or, from other callers, Node's own). */
interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  socket?: { remoteAddress?: string; remotePort?: number };
  routeOptions?: { url?: string; schema?: { querystring?: unknown } };
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The query parameter names the matched route declares: the only ones whose values are logged. */
function declaredParams(request: LoggedRequest): Set<string> {
  const schema = request.routeOptions?.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  return new Set(Object.keys(schema?.properties ?? {}));
}

/**
 * The `req` of the "incoming request" line. Never the raw URL: a careless client puts tokens,
 * secrets or session values in query strings (`?access_token=…`). It logs the route pattern
 * (`/v1/vulnerabilities/:vulnerabilityId`; the path when no route matched) and the query with
 * every value redacted except those of parameters the route declares (filters, `fields`, paging:
 * none of them secret); everything clipped, so no client can write long lines to the log.
 */
export function requestForLog(request: LoggedRequest) {
  const url = request.url ?? '';
  const at = url.indexOf('?');
  const path = at === -1 ? url : url.slice(0, at);
  const route = request.routeOptions?.url;
  const out: Record<string, unknown> = { method: request.method, url: clip(route ?? path, MAX_PATH) };
  if (at !== -1) {
    const allowed = declaredParams(request);
    const query: string[] = [];
    let count = 0;
    for (const [name, value] of new URLSearchParams(url.slice(at + 1))) {
      if (++count > MAX_QUERY_PARAMS) {
        query.push('…');
        break;
      }
      query.push(`${clip(name, MAX_NAME)}=${allowed.has(name) ? clip(value, MAX_VALUE) : '[redacted]'}`);
    }
    out.query = query.join('&');
  }
  out.remoteAddress = request.ip ?? request.socket?.remoteAddress;
  out.remotePort = request.socket?.remotePort;
  return out;
}

export function loggerOptions(level: string, format: 'json' | 'pretty' = 'json'): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { req: requestForLog as (req: unknown) => Record<string, unknown> },
    // In the process, synchronously: a line written before a crash or process.exit() is not lost.
    ...(format === 'pretty' && {
      stream: pretty({ sync: true, colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' }),
    }),
  };
}
