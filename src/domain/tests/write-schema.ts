// The body of a pushed test result (POST /v1/tests/{testId}/results), defined once: the schema
// validates the request and documents it, and the verb (record-result.ts) takes its type.
import { Type, type Static } from 'typebox';
import { TEST_RESOURCE_STATUSES } from '../../shared/vocabulary.ts';

/** Statuses a pushed result may give the test: `affected` is computed, `ignored` is a person's decision. */
export const RESULT_STATUSES = ['passing', 'fix_required'] as const;
/** Most resources one result may report. */
export const MAX_RESULT_RESOURCES = 1000;
/** Most tags one resource may carry. */
export const MAX_RESOURCE_TAGS = 20;
/**
 * Most fields and list items the body may hold in all (src/http/json-body.ts): 1,000 resources of
 * every field (10) and 20 tags, and the run's own fields.
 */
export const MAX_RESULT_JSON_ENTRIES = MAX_RESULT_RESOURCES * (10 + MAX_RESOURCE_TAGS) + 16;
/** A scannedAt this far ahead of the server's clock is still "now" (client clocks drift). */
export const RESULT_CLOCK_SKEW_MS = 60_000;

/** Names, IDs and tags: 1-255 characters with at least one that is not a space. */
const Name = (description?: string) => Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description });
const Short = (description?: string) => Type.String({ maxLength: 255, description });

export const ResultResource = Type.Object(
  {
    resourceId: Name('The resource as the scanner names it; unique within one result. A resource reported again keeps its assignees.'),
    name: Name(),
    status: Type.Enum([...TEST_RESOURCE_STATUSES], { description: 'The resource’s own status in this run.' }),
    region: Type.Optional(Short()),
    service: Type.Optional(Short()),
    accountID: Type.Optional(Short()),
    environment: Type.Optional(Short()),
    link: Type.Optional(
      Type.String({
        maxLength: 2048,
        pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@]+(?:[/?#][^\\s]*)?$',
        'x-pattern-message': 'must be an http:// or https:// URL without a user name or password',
        description: 'An http(s) URL to the resource, at most 2,048 characters.',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 2000, description: 'At most 2,000 characters.' })),
    tags: Type.Optional(Type.Array(Name(), { maxItems: MAX_RESOURCE_TAGS, description: `At most ${MAX_RESOURCE_TAGS} tags.` })),
  },
  { additionalProperties: false },
);
export type ResultResource = Static<typeof ResultResource>;

export const RecordTestResultBody = Type.Object(
  {
    status: Type.Enum([...RESULT_STATUSES], {
      description:
        'The run’s outcome. `affected` is not sent: a passing test whose observability integration is failing reads `affected`. An ignored test takes no result.',
    }),
    scannedAt: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 8_640_000_000_000_000,
        description:
          'When the run happened, epoch milliseconds; default: now. Not in the future (a minute of clock skew is allowed). A run older than the test’s lastScannedOn only joins testHistory.',
      }),
    ),
    resources: Type.Optional(
      Type.Array(ResultResource, {
        maxItems: MAX_RESULT_RESOURCES,
        description: `The resources the run checked, at most ${MAX_RESULT_RESOURCES}; they replace the test's resources. Absent: the run reported none.`,
      }),
    ),
  },
  { additionalProperties: false, description: 'One run of a test, pushed by a CI job or a scanner.' },
);
export type RecordTestResultBody = Static<typeof RecordTestResultBody>;
