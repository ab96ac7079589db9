// A person of the program (assignees, approvers and every person stamp reference people by key).
// The service's own actors (API credentials, console administrators, the service itself; see
// actor-stamp.ts) are people rows too and export like any other person.
import { Type, type Static } from 'typebox';
import { NAME_MAX_LENGTH, Name, RecordKey } from '../kinds/fields.ts';

export const ProgramPerson = Type.Object(
  {
    key: RecordKey,
    name: Name(),
    email: Type.String({
      minLength: 3,
      maxLength: NAME_MAX_LENGTH,
      pattern: '^[^\\s@]+@[^\\s@]+$',
      description: 'An email address; unique among the organization’s people.',
    }),
  },
  { additionalProperties: false },
);
export type ProgramPerson = Static<typeof ProgramPerson>;
