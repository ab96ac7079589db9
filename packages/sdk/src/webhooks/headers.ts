// The three webhook headers from what a receiver has at hand: a fetch `Headers` (Request.headers
// in fetch-style servers), or a plain object such as node:http's `req.headers` (lower-case names,
// a string, or an array for a repeated header) or a framework's own (any case).

export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The header's value; `undefined` when absent, `null` when it is repeated and repeats cannot be
 * joined. `joinWith` joins repeats (webhook-signature is a space-separated list, so two
 * signature headers are one longer list).
 */
export function headerValue(headers: WebhookHeaders, name: string, joinWith?: string): string | undefined | null {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) {
    // Headers joins repeats with ", "; a list entry never contains a comma after its scheme's.
    const value = headers.get(name);
    if (value === null) return undefined;
    if (joinWith === undefined) return value;
    return value.replace(/,\s+(?=v\d)/g, joinWith);
  }
  if (typeof headers !== 'object' || headers === null)
    throw new TypeError('headers must be a Headers object or a plain object of header names');
  const found: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    if (typeof value === 'string') found.push(value);
    else if (Array.isArray(value)) found.push(...value.filter((v): v is string => typeof v === 'string'));
  }
  if (found.length === 0) return undefined;
  if (found.length === 1) return found[0];
  return joinWith === undefined ? null : found.join(joinWith);
}
