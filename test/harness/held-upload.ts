// An upload whose body is sent in two steps: the first `sentBytes` at once, the rest when the test
// says so. It holds a write in flight for as long as a test needs (a slow client, or a node killed
// in the middle of an upload), over a real socket.
import http from 'node:http';

export interface HeldUpload {
  /** sends the next `bytes` of the body (a client trickling its file), resolving once they are written */
  send(bytes: number): Promise<void>;
  /** sends the rest of the body and resolves with the answer */
  finish(): Promise<{ status: number; body: any }>;
  /** resolves with the answer, or with the error that ended the connection */
  readonly answer: Promise<{ status: number; body: any } | Error>;
  /** closes the connection without sending the rest */
  abort(): void;
}

export function holdUpload(options: {
  url: string;
  path: string;
  token: string;
  key: string;
  body: Buffer;
  contentType: string;
  sentBytes: number;
}): HeldUpload {
  const target = new URL(options.path, options.url);
  const req = http.request(target, {
    method: 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${options.token}`,
      'idempotency-key': options.key,
      'content-type': options.contentType,
      'content-length': String(options.body.length),
    },
  });
  const answer = new Promise<{ status: number; body: any } | Error>((resolve) => {
    req.on('error', resolve);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', resolve);
      res.on('end', () => {
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
  });
  req.flushHeaders();
  let sent = options.sentBytes;
  req.write(options.body.subarray(0, sent));
  return {
    answer,
    send(bytes: number) {
      const chunk = options.body.subarray(sent, sent + bytes);
      sent += chunk.length;
      return new Promise<void>((resolve, reject) => req.write(chunk, (err) => (err ? reject(err) : resolve())));
    },
    async finish() {
      req.end(options.body.subarray(sent));
      const result = await answer;
      if (result instanceof Error) throw result;
      return result;
    },
    abort: () => req.destroy(),
  };
}
