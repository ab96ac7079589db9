// Sends one operation of the generated table: its path and query from the caller's arguments,
// a bearer token, and for writes one Idempotency-Key and one serialized body shared by every
// retry of the call.
import { operations, type OperationName, type OperationTypes } from '../generated/api.ts';
import type { RequestBody, RequestSender, ResponseInfo, TokenSource } from '../transport/request-sender.ts';
import { ComplianceError } from '../errors.ts';
import { pathOf, queryString } from '../wire.ts';

export interface ClientContext {
  sender: RequestSender;
  tokens: TokenSource;
}

export interface RequestOptions {
  /** aborts the call, including waits between retries */
  signal?: AbortSignal;
  /** per-attempt time-out for this call (default: the client's `timeoutMs`) */
  timeoutMs?: number;
  /** retries for this call (default: the client's `maxRetries`) */
  maxRetries?: number;
}

export interface WriteOptions extends RequestOptions {
  /**
   * The Idempotency-Key (1-128 of `A-Za-z0-9._~-`). Default: a new random key per call, reused
   * by that call's retries. Pass your own to make a write safe to repeat across process
   * restarts: the same key and body within 24 hours replays the first answer.
   */
  idempotencyKey?: string;
}

/** A response body with what the SDK saw of the answer in `response` (not enumerable, so not in JSON). */
export type WithResponse<T> = T & { readonly response: ResponseInfo };

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._~-]{1,128}$/;

export interface OperationArgs<N extends OperationName> {
  params?: OperationTypes[N]['params'];
  query?: OperationTypes[N]['query'];
  json?: OperationTypes[N]['body'];
  /** a prepared body (the multipart upload) */
  body?: RequestBody;
  /** request headers of the operation besides the sender's (`Prefer: respond-async`) */
  headers?: Record<string, string>;
  options?: WriteOptions;
}

export async function send<N extends OperationName>(
  ctx: ClientContext,
  name: N,
  args: OperationArgs<N> = {},
): Promise<WithResponse<OperationTypes[N]['response']>> {
  const operation = operations[name];
  const options = args.options ?? {};
  let idempotencyKey: string | undefined;
  if (operation.idempotent) {
    idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
    if (!IDEMPOTENCY_KEY.test(idempotencyKey)) throw new TypeError('idempotencyKey must be 1-128 characters of A-Za-z0-9._~-');
  }
  const body = args.body ?? (args.json !== undefined ? jsonBody(args.json) : undefined);
  try {
    const { body: result, info } = await ctx.sender.send<OperationTypes[N]['response']>({
      method: operation.method,
      path: pathOf(name, args.params as Record<string, string> | undefined) + queryString(name, args.query as object | undefined),
      body,
      headers: args.headers,
      idempotencyKey,
      tokens: ctx.tokens,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
    });
    return withResponse(result, info);
  } catch (err) {
    if (idempotencyKey !== undefined && err instanceof ComplianceError) err.idempotencyKey = idempotencyKey;
    throw err;
  }
}

/** Serialized once, so every retry sends the same bytes (the service compares bodies under one key). */
export function jsonBody(value: unknown): RequestBody {
  const text = JSON.stringify(value);
  return {
    contentType: 'application/json',
    open: () => ({ body: text, streaming: false }),
    replayable: () => true,
    sourceError: () => undefined,
  };
}

export function withResponse<T>(body: T, info: ResponseInfo): WithResponse<T> {
  Object.defineProperty(body, 'response', { value: info, enumerable: false });
  return body as WithResponse<T>;
}
