// The outgoing webhook request, as the delivery worker calls it (src/domain/webhooks/deliver.ts):
// one implementation, node-http.ts, handed to the worker at start-up (src/app.ts). The address
// policy stays in the domain (src/domain/webhooks/address-policy.ts) and is passed in as
// refuseAddress; signing happens before (src/domain/webhooks/sign.ts), in the headers given.

export interface SendInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** why this address may not receive webhooks, or undefined when it may */
  refuseAddress: (ip: string) => string | undefined;
  /** resolves a host name to its addresses (tests point a name at loopback); default: the system resolver */
  lookupHost?: (host: string) => Promise<string[]>;
}

export interface SendResult {
  /** the HTTP status, when an answer arrived */
  statusCode: number | null;
  latencyMs: number;
  /** why the attempt failed, when it did (an answer other than 2xx is a failure too) */
  error: string | null;
  /** the first 1 KB of the answer's body */
  responseBody: string | null;
  /** whether the request left this process (false: refused before connecting) */
  sent: boolean;
}

/** Sends one webhook request and says what came of it; never throws for a failed attempt. */
export type WebhookSender = (input: SendInput) => Promise<SendResult>;
