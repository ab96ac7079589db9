// The words a validation problem is told in, after the field's name, where the program document's
// checks (domain/program/validate.ts) and the HTTP requests' (http/validation.ts) say the same:
// one wording for a bound, whichever door refuses the value.

/** The message of an Ajv error of a length, size or uniqueness bound; undefined for any other keyword. */
export function boundMessage(keyword: string, limit: unknown): string | undefined {
  switch (keyword) {
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters long`;
    case 'maxLength':
      return `must be at most ${limit} characters long`;
    case 'minimum':
      return `must be ${limit} or more`;
    case 'maximum':
      return `must be ${limit} or less`;
    case 'uniqueItems':
      return 'must not list the same item twice';
    default:
      return undefined;
  }
}

/** `must be a whole number or null`: an Ajv `type` error's types (comma-separated) in the door's own words. */
export function typeMessage(types: string, words: Readonly<Record<string, string>>): string {
  return `must be ${types
    .split(',')
    .map((t) => words[t] ?? t)
    .join(' or ')}`;
}
