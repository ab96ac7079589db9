// One webhook request, with the safety rules of issue 15: the host is resolved here, every address
// it resolves to is checked (the endpoint's URL was checked when it was registered, but DNS may
// answer differently now), and the connection goes to the address checked, never to a second
// resolution; redirects are not followed; the whole attempt has one time limit; only the first
// 1 KB of the answer is kept and the rest is not read.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { resolveHost } from './resolve-host.ts';
import type { SendResult, WebhookSender } from './sender.ts';

/** The most of a response body kept for the console. */
export const RESPONSE_BODY_LIMIT = 1024;

/** Refused before any connection: the address check failed. */
class AddressRefused extends Error {}

/** The webhook sender of src/app.ts: node:http(s), one connection per attempt. */
export const sendWebhook: WebhookSender = async (input) => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return { statusCode: null, latencyMs: 0, error: 'the endpoint URL is not a valid URL', responseBody: null, sent: false };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { statusCode: null, latencyMs: 0, error: `the scheme ${url.protocol} is not http or https`, responseBody: null, sent: false };
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // Node connects to a literal address without calling `lookup`, so a literal is checked here.
  if (net.isIP(host)) {
    const reason = input.refuseAddress(host);
    if (reason) return { statusCode: null, latencyMs: 0, error: `address refused: ${host} ${reason}`, responseBody: null, sent: false };
  }
  const resolve = input.lookupHost ?? resolveHost;
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (resolved) => {
        const addresses = resolved.map((address) => ({ address, family: net.isIP(address) }));
        const refused = addresses.map((a) => ({ ...a, reason: input.refuseAddress(a.address) }));
        // Every address is checked: a name resolving to one public and one private address is
        // refused, rather than connected to whichever comes first.
        const bad = refused.find((a) => a.reason !== undefined);
        if (bad) return callback(new AddressRefused(`address refused: ${hostname} resolves to ${bad.address}, which ${bad.reason}`), '', 0);
        const usable = addresses.filter((a) => !options.family || a.family === options.family);
        if (usable.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) return (callback as unknown as (e: null, a: typeof usable) => void)(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };

  return await new Promise<SendResult>((done) => {
    let settled = false;
    let statusCode: number | null = null;
    let location: string | undefined;
    const chunks: Buffer[] = [];
    const outcome = () => {
      const code = statusCode ?? 0;
      if (code >= 200 && code < 300) return null;
      if (code >= 300 && code < 400) return `redirects are not followed (${code}${location ? ` to ${location.slice(0, 200)}` : ''})`;
      return `the receiver answered ${code}`;
    };
    const body = () => Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
    const finish = (error: string | null, responseBody: string | null, sent: boolean, atLeastMs = 0) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done({ statusCode, latencyMs: Math.max(elapsed(), atLeastMs), error, responseBody, sent });
    };
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, {
      method: 'POST',
      headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
      lookup,
      agent: false, // a connection per attempt: nothing reused past the address check
    });
    let sent = false;
    request.on('socket', (socket) => socket.once('connect', () => (sent = true)));
    const timer = setTimeout(() => {
      request.destroy();
      // an answer whose status arrived in time is judged by it, however slow its body
      if (statusCode !== null) finish(outcome(), body(), true);
      // The timer runs on the event loop's clock, which can fire a fraction of a millisecond before
      // performance.now() says the whole time-out passed: an attempt cut by it lasted the time-out.
      else finish(`no answer within ${input.timeoutMs} ms`, null, sent, input.timeoutMs);
    }, input.timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof AddressRefused) return finish(err.message, null, false);
      finish(describeError(err), null, sent);
    });
    request.on('response', (response) => {
      statusCode = response.statusCode ?? null;
      location = response.headers.location;
      let kept = 0;
      const keep = () => {
        response.destroy();
        request.destroy();
        finish(outcome(), body(), true);
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        kept += chunk.length;
        if (kept >= RESPONSE_BODY_LIMIT) keep();
      });
      response.on('end', keep);
      // a body cut off after the status arrived: the status decides
      response.on('error', keep);
      response.on('aborted', keep);
    });
    request.end(input.body);
  });
};

function describeError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset before an answer';
    case 'ENOTFOUND':
      return 'the host name does not resolve';
    case 'ETIMEDOUT':
      return 'connection timed out';
    default:
      return err.message.slice(0, 500) || String(err.code ?? 'request failed');
  }
}
