// What every check-results parser shares: the results' words trimmed to what a test's flagged
// resource holds, a tool's time read as epoch milliseconds, and the refusal of a file that is not
// the named format. The JSON is read as a stream by src/formats/scanners/json-stream.ts, whose
// errors name the place as a JSON pointer.
import type { CheckResult } from '../../domain/tests/check-result.ts';
import { fileError, type PathPart } from '../scanners/json-stream.ts';

/** A flagged resource's name, ID and labels are at most 255 characters; its description 2,000. */
const clip = (text: string | undefined, max: number) => {
  const t = text?.trim();
  if (!t) return undefined;
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/** A result as the import takes it: every text within the bounds of a test's flagged resource. */
export function checkResult(r: Omit<CheckResult, 'name'> & { name?: string }): CheckResult {
  const resourceId = clip(r.resourceId, 255) as string;
  const out: CheckResult = { check: r.check, verdict: r.verdict, resourceId, name: clip(r.name, 255) ?? resourceId };
  const region = clip(r.region, 255);
  if (region) out.region = region;
  const service = clip(r.service, 255);
  if (service) out.service = service;
  const account = clip(r.accountID, 255);
  if (account) out.accountID = account;
  const message = clip(r.message, 2000);
  if (message) out.message = message;
  if (r.time !== undefined) out.time = r.time;
  if (r.withinScope) out.withinScope = true;
  return out;
}

/**
 * A time as tools write it, in epoch milliseconds: ISO 8601 text (a date and time without a zone
 * is UTC), or a number of seconds (below 10^11) or milliseconds. Undefined when it reads as no time.
 */
export function timeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.round(value < 1e11 ? value * 1000 : value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  let text = value.trim();
  if (/^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(text)) text = `${text.replace(' ', 'T')}Z`;
  const ms = Date.parse(text);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** A check's ID as its name's second part: one line, at most 200 characters. */
export function checkId(tool: string, id: string | undefined, path: readonly PathPart[], what: string): string {
  const text = id?.trim();
  if (!text) throw fileError(path, `expected ${what}`);
  if (text.length > 200 || /[\r\n]/.test(text)) throw fileError(path, `expected ${what} of one line, at most 200 characters`);
  return `${tool}:${text}`;
}
