// A real HTTP server on loopback whose answers a test scripts one by one: errors with headers,
// dropped connections, slow answers. It records every request (headers and the exact body
// bytes) so a test can check what the SDK sent on each attempt. The token endpoint has its own
// script and, when that runs dry, issues `tok-1`, `tok-2`, … valid for an hour.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** ms since the server started */
  at: number;
}

/** One scripted answer: it writes the response (or destroys the socket). */
export type Answer = (req: Recorded, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface ScriptedServer {
  url: string;
  /** /v1 requests, in arrival order */
  requests: Recorded[];
  /** /oauth/token requests, in arrival order */
  tokenRequests: Recorded[];
  /** answers for the next /v1 requests, in order; when used up, `fallback` answers */
  script(...answers: Answer[]): void;
  scriptToken(...answers: Answer[]): void;
  fallback: Answer;
  /** forgets scripted answers not yet used and every recorded request */
  reset(): void;
  close(): Promise<void>;
}

let requestCounter = 0;
const nextRequestId = () => `req_test_${++requestCounter}`;

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': nextRequestId(), ...headers });
    res.end(JSON.stringify(body));
  };
}

/** The spec's /v1 error body. */
export function v1Error(status: number, code: string, headers: Record<string, string> = {}, details: unknown[] = []): Answer {
  return (req, res) => {
    const requestId = nextRequestId();
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId, ...headers });
    res.end(JSON.stringify({ error: { code, message: `scripted ${code}`, details }, meta: { requestId } }));
    void req;
  };
}

/** The token endpoint's error body. */
export function oauthError(status: number, error: string, headers: Record<string, string> = {}): Answer {
  return json(status, { error, error_description: `scripted ${error}` }, headers);
}

/** A `{ data, meta }` success. */
export function ok(data: unknown, status = 200, headers: Record<string, string> = {}): Answer {
  return (_req, res) => {
    const requestId = nextRequestId();
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId, ...headers });
    res.end(JSON.stringify({ data, meta: { requestId } }));
  };
}

/** Closes the connection without an answer. */
export const drop: Answer = (_req, _res, raw) => {
  raw.socket.destroy();
};

/** Waits, then answers with `then` (if the client is still there). */
export function slow(ms: number, then: Answer): Answer {
  return async (req, res, raw) => {
    await new Promise((r) => setTimeout(r, ms));
    if (raw.socket.destroyed) return;
    await then(req, res, raw);
  };
}

export function issueToken(token: string, expiresIn = 3600): Answer {
  return json(200, { access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: 'vulnerability:read vulnerability:write' });
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const started = performance.now();
  const apiQueue: Answer[] = [];
  const tokenQueue: Answer[] = [];
  let tokenCount = 0;
  const sockets = new Set<import('node:net').Socket>();
  const scripted: ScriptedServer = {
    url: '',
    requests: [],
    tokenRequests: [],
    script: (...answers) => void apiQueue.push(...answers),
    scriptToken: (...answers) => void tokenQueue.push(...answers),
    fallback: ok([]),
    reset: () => {
      apiQueue.length = 0;
      tokenQueue.length = 0;
      scripted.requests.length = 0;
      scripted.tokenRequests.length = 0;
      scripted.fallback = ok([]);
      tokenCount = 0;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of raw) chunks.push(chunk as Buffer);
    } catch {
      return; // the client went away mid-body
    }
    const recorded: Recorded = {
      method: raw.method ?? '',
      path: raw.url ?? '',
      headers: raw.headers,
      body: Buffer.concat(chunks),
      at: performance.now() - started,
    };
    if (new URL(recorded.path, 'http://x').pathname.endsWith('/oauth/token')) {
      scripted.tokenRequests.push(recorded);
      const answer = tokenQueue.shift() ?? issueToken(`tok-${++tokenCount}`);
      await answer(recorded, res, raw);
      return;
    }
    scripted.requests.push(recorded);
    const answer = apiQueue.shift() ?? scripted.fallback;
    await answer(recorded, res, raw);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  scripted.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return scripted;
}

/** A client of the scripted server with fast backoff, so tests wait only where they mean to. */
export const fastRetries = { retryBaseDelayMs: 5, retryMaxDelayMs: 20 } as const;
