// Scanner text brought within the API's bounds (./scanned-finding.ts), by the format parsers
// (src/formats/) and the import's scope check. A scanner routinely writes descriptions of several
// thousand characters and package paths longer than a name may be: those are shortened, never
// refused (docs/scanner-formats.md, "Bounds").
import { createHash } from 'node:crypto';
import { cleanedName } from '../text.ts';
import { MAX_JUSTIFICATION, MAX_NAME, MAX_TEXT, MAX_TITLE } from './scanned-finding.ts';

const ELLIPSIS = '…';
// Control and invisible formatting characters except line breaks and tabs, which prose keeps.
const INVISIBLE_IN_PROSE = /(?![\n\t])[\p{Cc}\p{Cf}]/gu;

/** Cut at `max` code points, ending with `…`; never splits a surrogate pair. */
export function shorten(text: string, max: number): string {
  // a string never has more code points than UTF-16 units: most texts fit without being split
  if (text.length <= max) return text;
  const chars = Array.from(text);
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}${ELLIPSIS}`;
}

/** A one-line title: the first non-blank line, spaces collapsed, at most 255 characters. */
export function titleText(text: string | undefined): string | undefined {
  const line = (text ?? '')
    .split(/\r?\n/)
    .map((l) => cleanedName(l).replace(/\s+/g, ' '))
    .find((l) => l.length > 0);
  return line ? shorten(line, MAX_TITLE) : undefined;
}

/** Prose (description, remediation): NFC, invisible characters removed, at most 750 characters. */
export function proseText(text: string | undefined, max = MAX_TEXT): string | undefined {
  const cleaned = (text ?? '').replace(INVISIBLE_IN_PROSE, '').normalize('NFC').trim();
  return cleaned ? shorten(cleaned, max) : undefined;
}

export const justificationText = (text: string | undefined) => proseText(text, MAX_JUSTIFICATION);

/**
 * A name (resource, tag, scope): one line, at most 255 characters. A longer one keeps its start and
 * ends with a short hash of the whole, so two long names that share a start stay two names.
 */
export function nameText(text: string | undefined): string | undefined {
  const cleaned = cleanedName(text ?? '').replace(/\s+/g, ' ');
  if (!cleaned) return undefined;
  if (cleaned.length <= MAX_NAME || Array.from(cleaned).length <= MAX_NAME) return cleaned;
  const hash = createHash('sha256').update(cleaned).digest('hex').slice(0, 12);
  return `${Array.from(cleaned)
    .slice(0, MAX_NAME - hash.length - 2)
    .join('')}${ELLIPSIS}~${hash}`;
}
