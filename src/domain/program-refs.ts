// The building blocks the program entries of evidence, tests and findings share: keys and
// references by key, names, texts, moments and links, each bounded (PRODUCT.md's lengths).
import { Type } from 'typebox';

/** A record's key, chosen by the document's author (or given by an export). */
export const EntryKey = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._~:@-]*$',
  'x-pattern-message': 'must start with a letter or digit and hold only letters, digits and . _ ~ : @ -',
  description: 'A key: 1-128 letters, digits and `. _ ~ : @ -`, starting with a letter or digit.',
});

/** Names and titles: 1-255 characters with at least one that is not a space. */
export const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
/** Free text: up to 2,000 characters. */
export const LongText = Type.String({ maxLength: 2000 });
/** Short labels (resource fields, tags). */
export const Label = Type.String({ maxLength: 255 });
/** Epoch milliseconds. */
export const Moment = Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description: 'Unix epoch milliseconds.' });
export const NullableMoment = Type.Union([Moment, Type.Null()]);
/** An http(s) link. */
export const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://\\S+$',
  'x-pattern-message': 'must be an http:// or https:// URL',
});

export const KeyList = (description: string) => Type.Array(EntryKey, { maxItems: 1000, uniqueItems: true, description });
export const PersonKeyList = (description: string) => Type.Array(EntryKey, { maxItems: 100, uniqueItems: true, description });

/** A requirement named by its framework's key and its own key within the framework. */
export const RequirementRef = Type.Object(
  { framework: EntryKey, requirement: EntryKey },
  { additionalProperties: false, description: 'A requirement: its framework’s key and the requirement’s key within it.' },
);
export const RequirementRefs = Type.Array(RequirementRef, { maxItems: 1000, description: 'Requirements this record is mapped to.' });

/** A ticket as the API shows it for evidence and tests (`ticketId`, `source`, `url`). */
export const Ticket = Type.Object(
  { ticketId: Type.String({ minLength: 1, maxLength: 255 }), source: Type.String({ minLength: 1, maxLength: 64 }), url: Url },
  { additionalProperties: false },
);
