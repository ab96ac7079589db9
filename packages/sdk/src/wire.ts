// Query strings and paths as the service reads them. Lists go as one comma-separated value
// (`status=open,closed`), booleans as true/false. IDs are percent-encoded, except a
// vulnerabilityId, which the service returns already encoded (`api%23VUL-0001`) and which
// must not be encoded again (that answers 404).
import type { OperationName } from './generated/api.ts';
import { operations } from './generated/api.ts';

export function queryString(operation: OperationName, query: object | undefined): string {
  if (!query) return '';
  const kinds: Record<string, string> = operations[operation].query;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const kind = kinds[name];
    if (!kind) throw new TypeError(`${operation}: unknown query parameter "${name}"`);
    params.set(name, wireValue(operation, name, kind, value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function wireValue(operation: string, name: string, kind: string, value: unknown): string {
  switch (kind) {
    case 'list': {
      if (!Array.isArray(value)) throw new TypeError(`${operation}: ${name} must be an array`);
      for (const item of value) {
        // A comma would split one value into two on the server.
        if (typeof item !== 'string' || item.includes(','))
          throw new TypeError(`${operation}: every ${name} entry must be a string without commas`);
      }
      return value.join(',');
    }
    case 'boolean':
      if (typeof value !== 'boolean') throw new TypeError(`${operation}: ${name} must be a boolean`);
      return String(value);
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`${operation}: ${name} must be a number`);
      return String(value);
    default:
      if (typeof value !== 'string') throw new TypeError(`${operation}: ${name} must be a string`);
      return value;
  }
}

/** The operation's path with its parameters filled in. */
export function pathOf(operation: OperationName, params: Record<string, string> = {}): string {
  return operations[operation].path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (typeof value !== 'string' || value === '') throw new TypeError(`${operation}: ${name} must be a non-empty string`);
    return name === 'vulnerabilityId' ? vulnerabilityIdSegment(value) : encodeURIComponent(value);
  });
}

/**
 * The vulnerabilityId as returned (`api%23VUL-0001`) is used as is; the decoded form
 * (`api#VUL-0001`) is encoded once, so both reach the same finding.
 */
export function vulnerabilityIdSegment(id: string): string {
  if (!id.includes('%')) return encodeURIComponent(id);
  if (!/^(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+$/.test(id))
    throw new TypeError(`vulnerabilityId "${id}" is neither the encoded form the service returns nor a plain ID`);
  return id;
}
