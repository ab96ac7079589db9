// A client that reuses one connection, as the SDK and most HTTP clients do: node:http with a
// keep-alive agent of one socket, so every request goes over the connection the last one left
// open (or a new one when the server closed it). Each answer says which connection carried it and
// whether the server said it would close it, and a request with no answer within `timeoutMs` is
// reported as such instead of waiting for the server's request time-out.
import http from 'node:http';
import type { Socket } from 'node:net';

export interface KeepAliveAnswer {
  status: number;
  body: any;
  /** the connection's ordinal: 1 for the first one this client opened, 2 for the next... */
  connection: number;
  /** the server's Connection header, lower-cased ('' when absent) */
  connectionHeader: string;
  ms: number;
}

export interface KeepAliveRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** sent whole, with its Content-Length (chunked instead when `chunked`) */
  body?: Buffer | string;
  chunked?: boolean;
}

export interface KeepAliveClient {
  /** the answer, or an Error saying no answer came within `timeoutMs` (or the connection failed) */
  send(request: KeepAliveRequest): Promise<KeepAliveAnswer | Error>;
  close(): void;
}

export function keepAliveClient(baseUrl: string, token: string, timeoutMs = 5_000): KeepAliveClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ordinals = new WeakMap<Socket, number>();
  let opened = 0;
  return {
    send({ method, path, headers = {}, body, chunked = false }) {
      const started = Date.now();
      const payload = body === undefined ? undefined : Buffer.from(body);
      return new Promise((resolve) => {
        const req = http.request(new URL(path, baseUrl), {
          method,
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            ...(payload && !chunked ? { 'content-length': String(payload.length) } : {}),
            ...headers,
          },
        });
        const timer = setTimeout(() => {
          resolve(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`));
          req.destroy();
        }, timeoutMs);
        req.on('socket', (socket) => {
          if (!ordinals.has(socket)) ordinals.set(socket, ++opened);
        });
        req.on('error', (err) => {
          clearTimeout(timer);
          resolve(err);
        });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            clearTimeout(timer);
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: any = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              // not JSON: keep the text
            }
            resolve({
              status: res.statusCode ?? 0,
              body: parsed,
              connection: ordinals.get(req.socket as Socket) ?? 0,
              connectionHeader: String(res.headers.connection ?? '').toLowerCase(),
              ms: Date.now() - started,
            });
          });
        });
        // A body the server refuses early may be cut off by the server closing: that is the
        // server's right once it has answered, so a write error is left to the answer above.
        if (chunked && payload) req.write(payload);
        req.end(chunked ? undefined : payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/**
 * Every request of `answers` was answered in time, and each went over the connection the one
 * before it left: the same one when the server kept it open, a new one after it said
 * `Connection: close`.
 */
export function assertTurns(answers: Array<KeepAliveAnswer | Error>, labels: string[]): KeepAliveAnswer[] {
  const done: KeepAliveAnswer[] = [];
  answers.forEach((answer, i) => {
    if (answer instanceof Error) throw new Error(`${labels[i]}: ${answer.message}`);
    const before = done[i - 1];
    if (before) {
      const expected = before.connectionHeader === 'close' ? before.connection + 1 : before.connection;
      if (answer.connection !== expected)
        throw new Error(
          `${labels[i]}: went over connection ${answer.connection}, expected ${expected} (the answer before said "${before.connectionHeader}")`,
        );
    }
    done.push(answer);
  });
  return done;
}
