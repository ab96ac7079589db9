// Names people read: credential and organization names, upload file names. Characters of the
// Unicode categories Cc (controls: C0, DEL, C1 such as U+0085) and Cf (invisible formatting: bidi
// overrides such as U+202E, zero-width characters, U+FEFF) do not show, yet they reorder what is
// shown (`invoice‮fdp.exe` reads as `invoiceexe.pdf`) or send control codes to the terminal that
// prints a name. Text is compared and stored in NFC, so one name has one spelling.
import type { FieldIssue } from '../shared/errors.ts';

const INVISIBLE = /[\p{Cc}\p{Cf}]/u;
const INVISIBLE_ALL = /[\p{Cc}\p{Cf}]/gu;

/**
 * A name a person typed: trimmed (which also drops a stray trailing tab or line break), NFC;
 * undefined when a Cc or Cf character remains inside it (refused, so that what people see is what
 * was stored). `invisibleIssue` describes the refusal.
 */
export function typedName(text: string): string | undefined {
  const trimmed = text.trim();
  return INVISIBLE.test(trimmed) ? undefined : trimmed.normalize('NFC');
}

export const invisibleIssue = (field: string): FieldIssue => ({
  field,
  message:
    'must not contain control or invisible formatting characters (such as line breaks, tabs, zero-width spaces or direction overrides)',
});

/**
 * A name that came from a machine (a file name from the client's file system): NFC, with every Cc
 * and Cf character removed, trimmed. Nobody typed it, so it is cleaned rather than refused.
 */
export function cleanedName(text: string): string {
  return text.replace(INVISIBLE_ALL, '').normalize('NFC').trim();
}
