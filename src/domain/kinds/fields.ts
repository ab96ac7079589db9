// The field shapes program documents share (issue 25): names, texts, links, times and references by
// key, each bounded (titles 1-255 characters, notes up to 2,000, resource and tag strings up to
// 255). Every kind's entry schema (src/domain/<resource>/program-schema.ts) builds on these, so one
// bound means the same thing everywhere.
import { Type, type TSchema } from 'typebox';

/** Longest record key accepted. */
export const RECORD_KEY_MAX_LENGTH = 128;
/**
 * Letters and digits of any script, `_`, then also `.` and `-`: every OSCAL identifier (a token:
 * a letter or `_`, then letters, digits, `.`, `-`, `_`) is a key as it is.
 */
export const RECORD_KEY_PATTERN = /^[\p{L}\p{N}_][\p{L}\p{N}._-]*$/u;

/** The rule a key follows, as the schema describes it. */
export const RECORD_KEY_RULE = `1-${RECORD_KEY_MAX_LENGTH} letters, digits, \`_\`, \`.\` or \`-\`, starting with a letter, a digit or \`_\`; case-sensitive.`;

export const RecordKey = Type.String({
  minLength: 1,
  maxLength: RECORD_KEY_MAX_LENGTH,
  pattern: RECORD_KEY_PATTERN.source,
  description: RECORD_KEY_RULE,
});

/** Names and short labels. */
export const NAME_MAX_LENGTH = 255;
/** Notes, reasons, questions. */
export const NOTE_MAX_LENGTH = 2_000;
/** Descriptions, remediation, requirement texts. */
export const TEXT_MAX_LENGTH = 20_000;
/** Links. */
export const URL_MAX_LENGTH = 2_048;
/** Items of a list inside one entry (assignees, entities, mappings, tickets…). */
export const LIST_MAX_ITEMS = 1_000;
/** Entries of one kind in one document (the records-per-document setting bounds the whole). */
export const KIND_MAX_ENTRIES = 1_000_000;

/** A name a person reads: not blank. */
export const Name = (maxLength = NAME_MAX_LENGTH, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: '\\S', description: description ?? `1-${maxLength} characters, not blank.` });

/** Free text, possibly empty. */
export const Text = (maxLength = TEXT_MAX_LENGTH, description?: string) =>
  Type.String({ maxLength, description: description ?? `Up to ${maxLength} characters.` });

/** An http(s) link. */
export const Url = (description?: string) =>
  Type.String({
    minLength: 1,
    maxLength: URL_MAX_LENGTH,
    pattern: '^https?://\\S+$',
    description: description ?? 'An http:// or https:// URL.',
  });

/** A time as the API gives it. */
export const EpochMs = (description?: string) =>
  Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description: description ?? 'Unix epoch milliseconds.' });

/** A time, or null for none. */
export const NullableMs = (description: string) => Type.Union([EpochMs(), Type.Null()], { description });

/** A field that may hold no value: `null` says so (left out keeps the current value instead). */
export const OrNull = <T extends TSchema>(schema: T) =>
  Type.Union([schema, Type.Null()], { description: `${(schema as { description?: string }).description ?? ''} null: none.`.trim() });

/** A reference to another record of the program by its key. */
export const KeyRef = (what: string) => Type.String({ ...RecordKey, description: `The key of ${what}.` });

/** A list of references by key. */
export const KeyRefs = (what: string, maxItems = LIST_MAX_ITEMS) =>
  Type.Array(KeyRef(what), { maxItems, uniqueItems: true, description: `Keys of ${what}; at most ${maxItems}.` });

/** A reference to a requirement: its framework's key, `/`, the requirement's key. */
export const REQUIREMENT_REF_PATTERN = `^[\\p{L}\\p{N}_][\\p{L}\\p{N}._-]*/[\\p{L}\\p{N}_][\\p{L}\\p{N}._-]*$`;
export const RequirementRef = Type.String({
  minLength: 3,
  maxLength: 2 * RECORD_KEY_MAX_LENGTH + 1,
  pattern: REQUIREMENT_REF_PATTERN,
  description: "A requirement: its framework's key, `/`, the requirement's key (for example `soc2/CC6.1`).",
});
export const RequirementRefs = Type.Array(RequirementRef, {
  maxItems: 10_000,
  uniqueItems: true,
  description: 'Requirements, each `<frameworkKey>/<requirementKey>`.',
});

/** A person stamp: the person's key (an actor of the service exports as a person too). */
export const PersonRef = (role: string) => OrNull(KeyRef(`the person who ${role}`));

/** A ticket of a record. */
export const ProgramTicket = Type.Object(
  {
    ticketId: Name(NAME_MAX_LENGTH, "The ticket's ID in its tracker (for example `SEC-123`)."),
    source: Name(NAME_MAX_LENGTH, 'The tracker (for example `jira`).'),
    url: Url(),
  },
  { additionalProperties: false },
);
export const ProgramTickets = Type.Array(ProgramTicket, { maxItems: LIST_MAX_ITEMS, description: `At most ${LIST_MAX_ITEMS}.` });

/** An assignee or approver: a person's key, and whether they are the primary one. */
export const ProgramAssignee = Type.Object(
  { person: KeyRef('a person'), isPrimary: Type.Optional(Type.Boolean({ description: 'Default false.' })) },
  { additionalProperties: false },
);
export const ProgramAssignees = Type.Array(ProgramAssignee, {
  maxItems: LIST_MAX_ITEMS,
  description: `In order; each person once; at most ${LIST_MAX_ITEMS}.`,
});

/** The authorship stamps, last in a stamped kind's entry. */
export const StampFields = {
  addedBy: Type.Optional(PersonRef('added it')),
  addedOn: Type.Optional(EpochMs('Default: when it is first applied.')),
  lastModifiedBy: Type.Optional(PersonRef('last changed it')),
  modifiedOn: Type.Optional(NullableMs('Default: when a change is applied.')),
};
