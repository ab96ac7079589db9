// A test (automated or cloud) as a program document writes it (docs/program-documents.md,
// "Tests"): every field GET /v1/tests/{id} shows with all its expansions (flagged resources of
// every status, tickets, risks, history), references named by key. The test's ID is
// `test_<key>_<organization tag>`, so its key is a slug.
import { Type, type Static } from 'typebox';
import { EFFORT_ESTIMATES, TEST_RESOURCE_STATUSES, TEST_RESULTS, TEST_STATUSES } from '../vocabulary.ts';
import { EntryKey, KeyList, Label, LongText, Moment, Name, NullableMoment, PersonKeyList, RequirementRefs, Ticket } from '../program-refs.ts';

export const TEST_KINDS = ['automated', 'cloud'] as const;

/** A test's key: the slug of its ID (`test_<slug>_<tag>`). */
export const TestKey = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z0-9]+(?:_[a-z0-9]+)*$',
  'x-pattern-message': 'must be a slug: lower-case letters and digits in words joined by single underscores',
  description: 'A slug (`mfa_enabled`): lower-case letters and digits, words joined by `_`. The test’s ID is `test_<key>_<organization tag>`.',
});

export const TestResourceEntry = Type.Object(
  {
    resourceId: Type.String({ minLength: 1, maxLength: 1024 }),
    name: Name,
    status: Type.Enum([...TEST_RESOURCE_STATUSES]),
    lastScannedAt: Type.Optional(Moment),
    firstDetected: Type.Optional(Moment),
    assignees: Type.Optional(PersonKeyList('People (by key).')),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 50 })),
    region: Type.Optional(Label),
    service: Type.Optional(Label),
    accountID: Type.Optional(Label),
    environment: Type.Optional(Label),
    entities: Type.Optional(KeyList('Entities (by key).')),
    link: Type.Optional(Type.String({ maxLength: 2048 })),
    description: Type.Optional(LongText),
  },
  { additionalProperties: false, description: 'A flagged resource, of any status.' },
);

export const TestHistoryItem = Type.Object(
  { scannedOn: Moment, status: Type.Enum([...TEST_STATUSES]) },
  { additionalProperties: false },
);

export const TestEntry = Type.Object(
  {
    key: TestKey,
    name: Name,
    kind: Type.Optional(Type.Enum([...TEST_KINDS], { description: 'Default `automated`.' })),
    status: Type.Optional(
      Type.Enum([...TEST_RESULTS], { description: 'The stored result (default `passing`); GET shows `affected` for a passing test whose integration fails.' }),
    ),
    integrationFailing: Type.Optional(Type.Boolean({ description: 'Default false.' })),
    applications: Type.Optional(Type.Array(Name, { maxItems: 100, uniqueItems: true, description: 'Application names.' })),
    description: Type.Optional(LongText),
    remediation: Type.Optional(LongText),
    notes: Type.Optional(LongText),
    effortEstimate: Type.Optional(Type.Enum([...EFFORT_ESTIMATES])),
    ignoreReason: Type.Optional(LongText),
    lastScannedOn: Type.Optional(Moment),
    addedOn: Type.Optional(Moment),
    modifiedOn: Type.Optional(NullableMoment),
    assignees: Type.Optional(PersonKeyList('People (by key); the first is the primary assignee.')),
    entities: Type.Optional(KeyList('Entities (by key): the test’s products.')),
    requirements: Type.Optional(RequirementRefs),
    controls: Type.Optional(KeyList('Controls (by key) this test is mapped to.')),
    risks: Type.Optional(KeyList('Risks (by key).')),
    tickets: Type.Optional(Type.Array(Ticket, { maxItems: 100 })),
    resources: Type.Optional(Type.Array(TestResourceEntry, { maxItems: 10_000 })),
    history: Type.Optional(Type.Array(TestHistoryItem, { maxItems: 10_000, description: 'Scans, oldest first.' })),
  },
  { additionalProperties: false },
);

export type TestResourceEntry = Static<typeof TestResourceEntry>;
export type TestHistoryItem = Static<typeof TestHistoryItem>;
export type TestEntry = Static<typeof TestEntry>;
