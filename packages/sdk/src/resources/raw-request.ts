// `client.request(method, path, …)`: any request to the service with everything the typed methods
// get (the bearer token and its renewal, the retry rules, one Idempotency-Key for all attempts of a
// write, the User-Agent and the hooks), for an endpoint this SDK version does not know yet or for
// tools like `compliance api`. In the manner of octokit's `request` and stripe-node's `rawRequest`.
import { ComplianceError } from '../errors.ts';
import type { RequestBody } from '../transport/request-sender.ts';
import { jsonBody, withResponse, type ClientContext, type WithResponse, type WriteOptions } from './operation.ts';

export type RawQueryValue = string | number | boolean | readonly string[];

export interface RawRequestInput extends WriteOptions {
  /** query parameters; a list goes as one comma-separated value, as the service reads lists */
  query?: Record<string, RawQueryValue | undefined>;
  /** a JSON body (serialized once, sent unchanged on every attempt) */
  body?: unknown;
  /** more request headers; Authorization, Idempotency-Key and Content-Type are the SDK's own */
  headers?: Record<string, string>;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._~-]{1,128}$/;
const RESERVED_HEADERS = new Set(['authorization', 'idempotency-key', 'content-type', 'content-length', 'host']);

export async function rawRequest<T>(
  ctx: ClientContext,
  method: string,
  path: string,
  input: RawRequestInput = {},
): Promise<WithResponse<T>> {
  const verb = method.toUpperCase();
  if (!/^[A-Z]+$/.test(verb)) throw new TypeError(`method must be an HTTP method such as GET or POST, not "${method}"`);
  // Only a path of this service: the bearer token must never go to another host.
  if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//') || /[\s#]/.test(path))
    throw new TypeError(`path must start with "/" and be a path of the service, such as /v1/frameworks; not "${path}"`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new TypeError(`the ${name} header is set by the SDK`);
    if (/[\r\n]/.test(value)) throw new TypeError(`the ${name} header must be one line`);
    headers[name] = value;
  }
  let idempotencyKey: string | undefined;
  if (WRITE_METHODS.has(verb)) {
    idempotencyKey = input.idempotencyKey ?? crypto.randomUUID();
    if (!IDEMPOTENCY_KEY.test(idempotencyKey)) throw new TypeError('idempotencyKey must be 1-128 characters of A-Za-z0-9._~-');
  }
  const body: RequestBody | undefined = input.body === undefined ? undefined : jsonBody(input.body);
  const isTokenEndpoint = path.split('?')[0] === '/oauth/token';
  try {
    const { body: result, info } = await ctx.sender.send<T>({
      method: verb,
      path: path + query(path, input.query),
      body,
      idempotencyKey,
      tokens: isTokenEndpoint ? undefined : ctx.tokens,
      headers,
      allowEmptyBody: true,
      signal: input.signal,
      timeoutMs: input.timeoutMs,
      maxRetries: input.maxRetries,
    });
    // A success without a body (204) is an empty object, so `response` has somewhere to live.
    return withResponse((result ?? {}) as T, info);
  } catch (err) {
    if (idempotencyKey !== undefined && err instanceof ComplianceError) err.idempotencyKey = idempotencyKey;
    throw err;
  }
}

function query(path: string, values: RawRequestInput['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values ?? {})) {
    if (value === undefined) continue;
    params.append(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  if (!text) return '';
  return `${path.includes('?') ? '&' : '?'}${text}`;
}
