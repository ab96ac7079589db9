// What the writes of policies and evidence share: the bounds and shapes of a reason, an external
// link, and the body of a move that takes none. Each resource's write-schema.ts builds on these.
import { Type } from 'typebox';
import { MAX_URL_LENGTH } from '../web-link.ts';

/** Longest reason (a rejection, why a record is not relevant) and link note accepted. */
export const MAX_REASON_LENGTH = 2000;
/** External links one PATCH may add, and links a record may hold. */
export const MAX_LINKS_PER_REQUEST = 20;
export const MAX_LINKS_PER_RECORD = 100;

/** A reason a person writes: 1-2,000 characters, not blank. */
export const Reason = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_REASON_LENGTH,
    pattern: '\\S',
    description: `${description} 1-${MAX_REASON_LENGTH} characters, not blank.`,
  });

/** A link's name: 1-255 characters, not blank, without control or invisible characters. */
export const LinkName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '\\S',
  description: 'The name shown for the link; 1-255 characters.',
});
export const LinkUrl = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'An http:// or https:// URL without a user name or password; at most 2048 characters.',
});
export const LinkNote = Type.String({ maxLength: MAX_REASON_LENGTH, description: `At most ${MAX_REASON_LENGTH} characters.` });

/** The body of a move that takes none (approve): nothing, or an empty object. */
export const EmptyMoveBody = Type.Object({}, { additionalProperties: false, description: 'No fields: send no body or `{}`.' });
