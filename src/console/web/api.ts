// Client for the admin API under /console/api. Uses only `fetch` (no DOM types) so
// the root Node type-check can include this file too.
import type {
  ProgramPlan,
  AccessLevel,
  AuditEntry,
  Credential,
  EndpointEventType,
  FieldError,
  NewCredential,
  NewWebhookEndpoint,
  Overview,
  RotatedSecret,
  Session,
  Usage,
  WebhookDelivery,
  WebhookEndpoint,
} from './types.ts';

const BASE = '/console/api';

/** A page of a cursor-paged list as the console reads it: the items (`data`) and `meta.nextCursor`. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export class ApiError extends Error {
  /** HTTP status, or 0 when the server could not be reached. */
  readonly status: number;
  readonly code: string;
  readonly details: FieldError[];
  readonly retryAfterSec: number | null;

  constructor(status: number, code: string, message: string, details: FieldError[] = [], retryAfterSec: number | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfterSec = retryAfterSec;
  }
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(0, 'client_error', error instanceof Error ? error.message : 'Something went wrong.');
}

// The CSRF token lives in memory only: a reload fetches it again with the session.
let csrfToken: string | null = null;
let onSessionEnded: (() => void) | null = null;
// Counts sessions, so a 401 answering a request of an earlier session (still in flight when
// the session ended, or when another began) is not reported again.
let generation = 0;
// Each request the server accepts extends the session's idle time-out.
let lastActivity = 0;

/** When this tab last made a request the server accepted (epoch ms). */
export function lastActivityAt(): number {
  return lastActivity;
}

/** Called once by the app: any unexpected 401 means the session is gone. */
export function setSessionEndedHandler(handler: () => void): void {
  onSessionEnded = handler;
}

interface RequestOptions {
  body?: unknown;
  /** The caller handles 401 itself (session probe, sign-in attempt). */
  expect401?: boolean;
}

interface Envelope<T> {
  data: T;
  meta: { requestId?: string; nextCursor?: string | null };
}

async function request<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, options: RequestOptions = {}): Promise<Envelope<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== null) headers['X-CSRF-Token'] = csrfToken;
  const startedIn = generation;

  let response: Response;
  try {
    response = await fetch(BASE + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'network_error', 'Could not reach the server. Check your connection and try again.');
  }

  if (response.ok) lastActivity = Date.now();
  if (response.status === 204) return { data: undefined as T, meta: {} };

  let payload: unknown = null;
  try {
    payload = await response.json();
  } catch {
    // A proxy error page or an empty body: fall through to the generic message.
  }

  if (response.ok && isObject(payload) && 'data' in payload) {
    return payload as unknown as Envelope<T>;
  }

  const error = parseError(response, payload);
  if (response.status === 401 && !options.expect401 && startedIn === generation) {
    generation += 1;
    csrfToken = null;
    onSessionEnded?.();
  }
  throw error;
}

function parseError(response: Response, payload: unknown): ApiError {
  const body = isObject(payload) && isObject(payload.error) ? payload.error : null;
  const code = typeof body?.code === 'string' ? body.code : `http_${response.status}`;
  const message =
    typeof body?.message === 'string' && body.message !== ''
      ? body.message
      : response.ok
        ? 'The server sent a response the console does not understand.'
        : `The server answered with an error (HTTP ${response.status}).`;
  const details: FieldError[] = [];
  let retryAfterSec: number | null = null;
  if (Array.isArray(body?.details)) {
    for (const item of body.details as unknown[]) {
      if (!isObject(item)) continue;
      if (typeof item.retryAfterSec === 'number') retryAfterSec = item.retryAfterSec;
      if (typeof item.message === 'string') {
        details.push({
          field: typeof item.field === 'string' ? item.field : '',
          message: item.message,
          ...(typeof item.line === 'number' ? { line: item.line } : {}),
          ...(typeof item.column === 'number' ? { column: item.column } : {}),
        });
      }
    }
  }
  const header = Number.parseInt(response.headers.get('Retry-After') ?? '', 10);
  if (Number.isFinite(header)) retryAfterSec = header;
  return new ApiError(response.ok ? 500 : response.status, code, message, details, retryAfterSec);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function remember(session: Session): Session {
  if (session.csrfToken !== csrfToken) generation += 1;
  csrfToken = session.csrfToken;
  return session;
}

/** The current session, or null when nobody is signed in. */
export async function getSession(): Promise<Session | null> {
  try {
    return remember((await request<Session>('GET', '/session', { expect401: true })).data);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      if (csrfToken !== null) generation += 1;
      csrfToken = null;
      return null;
    }
    throw error;
  }
}

export async function signIn(email: string, password: string): Promise<Session> {
  return remember((await request<Session>('POST', '/session', { body: { email, password }, expect401: true })).data);
}

export async function signOut(): Promise<void> {
  await request<void>('DELETE', '/session');
  generation += 1;
  csrfToken = null;
}

export async function listCredentials(): Promise<Credential[]> {
  return (await request<Credential[]>('GET', '/credentials')).data;
}

export async function createCredential(input: { name: string; accessLevel: AccessLevel }): Promise<NewCredential> {
  return (await request<NewCredential>('POST', '/credentials', { body: input })).data;
}

export async function revokeCredential(id: string): Promise<Credential> {
  return (await request<Credential>('POST', `/credentials/${encodeURIComponent(id)}/revoke`, { body: {} })).data;
}

export async function getUsage(): Promise<Usage> {
  return (await request<Usage>('GET', '/usage')).data;
}

export async function getOverview(): Promise<Overview> {
  return (await request<Overview>('GET', '/overview')).data;
}

/** A program document planned (`plan`) or applied (`apply`) to the organization. */
export async function programDocument(mode: 'plan' | 'apply', text: string, fileName: string, prune = false): Promise<ProgramPlan> {
  const query = `mode=${mode}${prune ? '&prune=true' : ''}`;
  return (await request<ProgramPlan>('POST', `/program?${query}`, { body: { text, fileName } })).data;
}

export async function getAuditLog(cursor: string | null, limit = 50): Promise<Page<AuditEntry>> {
  const query = new URLSearchParams({ limit: String(limit) });
  if (cursor !== null) query.set('cursor', cursor);
  const result = await request<AuditEntry[]>('GET', `/audit-log?${query.toString()}`);
  return { items: result.data, nextCursor: result.meta.nextCursor ?? null };
}

// ---- Webhooks ----

const endpointPath = (endpointId: string) => `/webhook-endpoints/${encodeURIComponent(endpointId)}`;

export async function listWebhookEndpoints(): Promise<WebhookEndpoint[]> {
  return (await request<WebhookEndpoint[]>('GET', '/webhook-endpoints')).data;
}

export async function createWebhookEndpoint(input: {
  url: string;
  description: string;
  eventTypes: EndpointEventType[];
}): Promise<NewWebhookEndpoint> {
  return (await request<NewWebhookEndpoint>('POST', '/webhook-endpoints', { body: input })).data;
}

export async function getWebhookEndpoint(endpointId: string): Promise<WebhookEndpoint> {
  return (await request<WebhookEndpoint>('GET', endpointPath(endpointId))).data;
}

export async function updateWebhookEndpoint(
  endpointId: string,
  changes: { url?: string; description?: string; eventTypes?: EndpointEventType[]; status?: WebhookEndpoint['status'] },
): Promise<WebhookEndpoint> {
  return (await request<WebhookEndpoint>('PATCH', endpointPath(endpointId), { body: changes })).data;
}

export async function deleteWebhookEndpoint(endpointId: string): Promise<void> {
  await request<void>('DELETE', endpointPath(endpointId));
}

export async function rotateWebhookSecret(endpointId: string): Promise<RotatedSecret> {
  return (await request<RotatedSecret>('POST', `${endpointPath(endpointId)}/rotate-secret`, { body: {} })).data;
}

/** A page of the endpoint's deliveries, newest first, and the cursor of the next page. */
export async function listWebhookDeliveries(endpointId: string, cursor: string | null, count = 25): Promise<Page<WebhookDelivery>> {
  const query = new URLSearchParams({ count: String(count) });
  if (cursor !== null) query.set('cursor', cursor);
  const result = await request<WebhookDelivery[]>('GET', `${endpointPath(endpointId)}/deliveries?${query.toString()}`);
  return { items: result.data, nextCursor: result.meta.nextCursor ?? null };
}

/** Sends a `webhook.test` event to the endpoint (a new delivery). */
export async function sendWebhookTestEvent(endpointId: string): Promise<void> {
  await request<unknown>('POST', `${endpointPath(endpointId)}/test`, { body: {} });
}

/** Sends the delivery's event again (a new delivery, same event ID and payload). */
export async function redeliverWebhookDelivery(deliveryId: string): Promise<void> {
  await request<unknown>('POST', `/webhook-deliveries/${encodeURIComponent(deliveryId)}/redeliver`, { body: {} });
}
