// Warm reads answered before Fastify's routing. Once a GET has been answered from kept bytes
// (src/http/answer-bytes.ts, through sendEnvelope), its raw URL is held here with what made that
// answer: the organization, the actor's scopes and plan, its data versions, and the headers in
// the order Fastify sent them. The next GET of the same URL is authenticated and counted exactly
// as the onRequest hook does it (the same function: grants from memory, the SQLite change stamp
// or the Redis markers read with the rate-limit count) and, when its actor is of that
// organization with the same scopes, plan and data versions and is within its limit, answered
// here: the same status, headers and body, with its own request ID, counted in the metrics and
// the usage counts and logged as Fastify logs it. Fastify's routing, request and reply objects,
// hooks, query validation, the verb's cache key and the handler cost more than all of that did.
//
// Anything else goes to Fastify. A request whose authentication has started here is handed over
// with it (src/http/plugins/auth.ts takes it instead of authenticating and counting again), so a
// refused token, a 429, a plan or scope change or a new data version is answered by the normal
// path, once and exactly as before. The answer is a function of the URL, the organization's data
// versions, the scopes and the plan only because what is held comes from sendEnvelope, which
// keeps bytes only for results the result cache shares (results that depend on the clock or the
// credential are never shared).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { DataVersions } from '../shared/data-versions.ts';
import { DATA_KINDS } from '../shared/data-versions.ts';
import type { UsageRecorder } from '../domain/console/usage-recorder.ts';
import type { Actor } from '../domain/auth/scopes.ts';
import type { AnswerBytes } from './answer-bytes.ts';
import type { Metrics } from './plugins/metrics.ts';
import { bearerToken, handOverAuthentication, rateLimitHeaderValues, type Authenticated, type TokenAuthenticator } from './plugins/auth.ts';
import { EndOfTurn } from './end-of-turn.ts';
import { newRequestId } from './request-id.ts';

/** A URL longer than this is never held (it still gets its answer from Fastify). */
const MAX_URL_LENGTH = 2048;

/** How a held header gets its value for each answer. */
type HeaderValue = { fixed: string } | 'request-id' | 'rate-limit-limit' | 'rate-limit-remaining' | 'rate-limit-reset';

const DYNAMIC: Record<string, HeaderValue> = {
  'x-request-id': 'request-id',
  'x-ratelimit-limit': 'rate-limit-limit',
  'x-ratelimit-remaining': 'rate-limit-remaining',
  'x-ratelimit-reset': 'rate-limit-reset',
};

interface Held {
  result: WeakRef<object>;
  organizationId: string;
  scopes: ReadonlySet<string>;
  plan: ReadonlySet<string>;
  versions: number[];
  headers: Array<[name: string, value: HeaderValue]>;
  /** for the metrics and the log: the route pattern and its declared query parameters */
  route: string;
  querystring: unknown;
  requestLabels: { method: string; route: string; status: string };
  durationLabels: { method: string; route: string };
}

export interface WarmReadsOptions {
  /** authenticates and counts a request (tokenAuthenticator of src/http/plugins/auth.ts) */
  authenticate: TokenAuthenticator;
  answers: AnswerBytes;
  metrics: Metrics;
  usage: UsageRecorder;
  log: FastifyBaseLogger;
  /** false when Fastify works out the client's address from X-Forwarded-For (TRUST_PROXY) */
  clientAddressIsPeer: boolean;
  /** most URLs (per organization) held; the oldest are forgotten first */
  maxHeld?: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Whether Fastify writes its request lines (pino's loggers say; the silent one of `logger: false` does not). */
const logsRequests = (log: FastifyBaseLogger) =>
  (log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') === true;

const versionsOf = (versions: DataVersions) => DATA_KINDS.map((kind) => versions[kind]);

function sameVersions(held: number[], versions: DataVersions): boolean {
  for (let i = 0; i < DATA_KINDS.length; i++) if (held[i] !== versions[DATA_KINDS[i]]) return false;
  return true;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const item of a) if (!b.has(item)) return false;
  return true;
}

/** Exactly one Authorization header (the hook refuses repeated ones; Fastify answers that). */
function hasOneAuthorization(rawHeaders: string[]): boolean {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 13 && name.toLowerCase() === 'authorization') count++;
  }
  return count === 1;
}

export class WarmReads {
  /** raw URL → organization → what answered it */
  private readonly byUrl = new Map<string, Map<string, Held>>();
  /** every (URL, organization) held, oldest first, to keep within maxHeld */
  private readonly order = new Set<Held>();
  private readonly urlOf = new WeakMap<Held, string>();
  private readonly options: WarmReadsOptions;
  private readonly maxHeld: number;
  private closed = false;
  /** where answers wait to be written together, at the end of the turn (end-of-turn.ts says why) */
  private readonly endOfTurn: EndOfTurn;

  constructor(options: WarmReadsOptions) {
    this.options = options;
    this.maxHeld = options.maxHeld ?? 10_000;
    this.endOfTurn = new EndOfTurn((err) => options.log.error({ err }, 'writing a warm read failed'));
  }

  get size(): number {
    return this.order.size;
  }

  /** No more answers here (the server is closing: Fastify adds Connection: close then). */
  close() {
    this.closed = true;
    this.byUrl.clear();
    this.order.clear();
  }

  /**
   * Holds the URL of `request`, just answered 200 with the kept bytes of `result` and the headers
   * set on `reply` so far (sendEnvelope adds Content-Type and Content-Length after them).
   */
  hold(request: FastifyRequest, reply: FastifyReply, result: object) {
    const url = request.raw.url;
    const actor = request.actor;
    if (this.closed || request.method !== 'GET' || !actor || !url || url.length > MAX_URL_LENGTH) return;
    const headers: Held['headers'] = [];
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      // sendEnvelope sets these itself, in place of any set before (not the case on any route now)
      if (name === 'content-type' || name === 'content-length') return;
      const dynamic = DYNAMIC[name];
      if (dynamic) headers.push([name, dynamic]);
      else if (typeof value === 'string') headers.push([name, { fixed: value }]);
      else return; // a header this path does not know how to repeat: leave the URL to Fastify
    }
    if (!headers.some(([, v]) => v === 'request-id')) return;
    const route = request.routeOptions.url ?? url;
    const held: Held = {
      result: new WeakRef(result),
      organizationId: actor.organizationId,
      scopes: actor.scopes,
      plan: actor.plan,
      versions: versionsOf(actor.dataVersions),
      headers,
      route,
      querystring: request.routeOptions.schema?.querystring,
      requestLabels: { method: 'GET', route, status: '200' },
      durationLabels: { method: 'GET', route },
    };
    let byOrg = this.byUrl.get(url);
    if (!byOrg) {
      byOrg = new Map();
      this.byUrl.set(url, byOrg);
    }
    const old = byOrg.get(actor.organizationId);
    if (old) this.order.delete(old);
    byOrg.set(actor.organizationId, held);
    this.urlOf.set(held, url);
    this.order.add(held);
    for (const oldest of this.order) {
      if (this.order.size <= this.maxHeld) break;
      this.forget(oldest);
    }
  }

  private forget(held: Held) {
    this.order.delete(held);
    const url = this.urlOf.get(held)!;
    const byOrg = this.byUrl.get(url);
    if (byOrg?.get(held.organizationId) === held) {
      byOrg.delete(held.organizationId);
      if (byOrg.size === 0) this.byUrl.delete(url);
    }
  }

  /** The server's request listener: answers a held warm read here, or passes the request to `fastify`. */
  handle(req: IncomingMessage, res: ServerResponse, fastify: Handler) {
    if (this.closed || req.method !== 'GET') return fastify(req, res);
    const url = req.url as string;
    if (!this.byUrl.has(url)) return fastify(req, res);
    const headers = req.headers;
    // A GET with a body, or with repeated or unusable credentials: Fastify says what is wrong.
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return fastify(req, res);
    if (!hasOneAuthorization(req.rawHeaders)) return fastify(req, res);
    const token = bearerToken(headers.authorization);
    if (token === undefined) return fastify(req, res);
    if (!this.options.clientAddressIsPeer && logsRequests(this.options.log)) return fastify(req, res);

    const startedAt = performance.now();
    // From memory where it can be, answered in this very call as a bare server would; else after
    // the wait, in the same way.
    const known = this.options.authenticate.fromMemory(token);
    if (known) {
      try {
        this.answerOrHandOver(req, res, url, known, Promise.resolve(known), startedAt, fastify);
      } catch (err) {
        this.failedBeforeRouting(res, err);
      }
      return;
    }
    const authenticated = this.options.authenticate(token);
    authenticated
      .then(
        (outcome) => this.answerOrHandOver(req, res, url, outcome, authenticated, startedAt, fastify),
        () => {
          // A refused token: the hook answers it (and counts it against the client's address).
          handOverAuthentication(req, authenticated);
          fastify(req, res);
        },
      )
      .catch((err: unknown) => this.failedBeforeRouting(res, err));
  }

  /** Fastify's own listener threw: as Node would with a throwing listener, but without the crash. */
  private failedBeforeRouting(res: ServerResponse, err: unknown) {
    this.options.log.error({ err }, 'request failed before routing');
    res.destroy();
  }

  private answerOrHandOver(
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    outcome: Authenticated,
    authenticated: Promise<Authenticated>,
    startedAt: number,
    fastify: Handler,
  ) {
    let answered = false;
    try {
      answered = this.answer(req, res, url, outcome, startedAt);
    } catch (err) {
      // Not expected; a failure here must neither crash the process nor leave the request hanging.
      this.options.log.error({ err }, 'warm read failed; answered by Fastify');
      if (res.headersSent) return void res.destroy();
    }
    if (!answered) {
      handOverAuthentication(req, authenticated);
      fastify(req, res);
    }
  }

  /** Answers with the held answer of `url` for this actor (written at the end of the turn); false when there is none to give. */
  private answer(req: IncomingMessage, res: ServerResponse, url: string, { actor, state }: Authenticated, startedAt: number): boolean {
    if (this.closed || state.exceeded) return false;
    const held = this.byUrl.get(url)?.get(actor.organizationId);
    if (!held || !this.matches(held, actor)) return false;
    const result = held.result.deref();
    if (!result) return false;
    const requestId = newRequestId();
    const parts = this.options.answers.answer(result, requestId);
    if (!parts) return false;

    const log = logsRequests(this.options.log) ? this.options.log.child({ requestId }) : undefined;
    log?.info(
      {
        req: {
          method: 'GET',
          url,
          ip: req.socket.remoteAddress,
          socket: req.socket,
          routeOptions: { url: held.route, schema: { querystring: held.querystring } },
        },
      },
      'incoming request',
    );
    const [limit, remaining, reset] = rateLimitHeaderValues(state.limit, state.window);
    const raw: string[] = [];
    for (const [name, value] of held.headers) {
      raw.push(name);
      if (value === 'request-id') raw.push(requestId);
      else if (value === 'rate-limit-limit') raw.push(limit);
      else if (value === 'rate-limit-remaining') raw.push(remaining);
      else if (value === 'rate-limit-reset') raw.push(reset);
      else raw.push(value.fixed);
    }
    let length = 0;
    for (const part of parts) length += part.length;
    raw.push('content-type', 'application/json; charset=utf-8', 'content-length', String(length));
    this.options.usage.count(actor.credentialId, actor.organizationId, false);
    this.options.metrics.warmReads.inc();
    this.endOfTurn.add(() => {
      try {
        res.writeHead(200, raw);
        res.cork();
        for (const part of parts) res.write(part);
        res.end();
      } catch (err) {
        // Not expected; the request must not hang. (A closed connection is not an error here: Node drops the bytes.)
        this.options.log.error({ err }, 'writing a warm read failed');
        return void res.destroy();
      }
      const elapsedMs = performance.now() - startedAt;
      this.options.metrics.requests.inc(held.requestLabels);
      this.options.metrics.duration.observe(held.durationLabels, elapsedMs / 1000);
      log?.info({ res: { statusCode: 200 }, responseTime: elapsedMs }, 'request completed');
    });
    return true;
  }

  private matches(held: Held, actor: Actor): boolean {
    return sameVersions(held.versions, actor.dataVersions) && sameSet(held.scopes, actor.scopes) && sameSet(held.plan, actor.plan);
  }
}
