// Severity from what a tool says (docs/scanner-formats.md, "Severity"): the tool's own word when it
// has one of the four levels, otherwise the CVSS score by the CVSS v3 qualitative scale, otherwise
// medium (neither hidden nor an alarm).
import type { Severity } from '../../domain/vulnerabilities/shape.ts';

/** CVSS v3.x qualitative rating: 9.0+ critical, 7.0+ high, 4.0+ medium, else low (0 "none" too). */
export function severityOfScore(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

const WORDS: Record<string, Severity> = {
  critical: 'critical',
  high: 'high',
  important: 'high',
  medium: 'medium',
  moderate: 'medium',
  low: 'low',
  negligible: 'low',
  info: 'low',
  informational: 'low',
  none: 'low',
};

/** A tool's severity word (any case); undefined for `unknown` or a word not known. */
export function severityOfWord(word: unknown): Severity | undefined {
  return typeof word === 'string' ? WORDS[word.trim().toLowerCase()] : undefined;
}

/** A CVSS base score when it is one (0-10), rounded to one decimal. */
export function cvssScoreOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= 10 ? Math.round(n * 10) / 10 : undefined;
}

/** The rule in one place: the tool's word, else the score, else medium. */
export function chooseSeverity(word: unknown, score: number | undefined): Severity {
  return severityOfWord(word) ?? (score === undefined ? 'medium' : severityOfScore(score));
}
