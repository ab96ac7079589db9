// A test (automated or cloud) as a program document carries it (docs/program-documents.md,
// "Tests"): every field GET /v1/tests and GET /v1/tests/{testId} show with all their expansions:
// applications, flagged resources of every status (with their assignees and entities), scan
// history, tickets, risks, the controls and requirements it is mapped to. A test's ID is
// `test_<key>_<organization tag>`, so its key is a slug.
import { Type, type Static } from 'typebox';
import { EFFORT_ESTIMATES, TEST_RESOURCE_STATUSES, TEST_RESULTS, TEST_STATUSES } from '../../shared/vocabulary.ts';
import {
  EpochMs,
  KeyRefs,
  LIST_MAX_ITEMS,
  Name,
  NAME_MAX_LENGTH,
  NOTE_MAX_LENGTH,
  OrNull,
  ProgramAssignees,
  ProgramTickets,
  RequirementRefs,
  StampFields,
  Text,
  URL_MAX_LENGTH,
} from '../kinds/fields.ts';
import { RECORD_KEY_MAX_LENGTH } from '../kinds/fields.ts';

export const TEST_KINDS = ['automated', 'cloud'] as const;

/** A test's key: the slug of its ID (`test_<slug>_<organization tag>`). */
export const TEST_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

export const TestKey = Type.String({
  minLength: 1,
  maxLength: RECORD_KEY_MAX_LENGTH,
  pattern: TEST_KEY_PATTERN.source,
  description:
    'A slug (`aws_root_mfa`): lower-case letters, digits, `_` and `-`, starting with a letter or digit. The test’s ID is `test_<key>_<organization tag>`.',
});

/** A check a test is made of: `<tool>:<the tool's ID of the check>` (docs/check-results.md). */
export const CHECK_NAME_PATTERN = /^[a-z0-9][a-z0-9-]*:\S(?:.*\S)?$/;
export const CHECK_NAME_MAX_LENGTH = 255;
/** Most checks one test names. */
export const TEST_CHECKS_MAX = 500;

export const CheckName = Type.String({
  minLength: 3,
  maxLength: CHECK_NAME_MAX_LENGTH,
  pattern: CHECK_NAME_PATTERN.source,
  description:
    'A check: the tool in lower case, `:`, and the tool’s ID of the check (`prowler:s3_bucket_default_encryption`, `kyverno:require-labels/check-for-labels`; docs/check-results.md names the ID of each tool).',
});

/** Most flagged resources and history entries of one test. */
export const TEST_RESOURCES_MAX = 10_000;
export const TEST_HISTORY_MAX = 10_000;

/** A label of a flagged resource (region, service, account, environment, tag). */
const Label = (description?: string) => Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH, description });

export const ProgramTestResource = Type.Object(
  {
    resourceId: Type.String({ minLength: 1, maxLength: 1024, description: 'The resource’s ID in its system (an ARN, a URL…).' }),
    name: Name(),
    status: Type.Enum([...TEST_RESOURCE_STATUSES]),
    lastScannedAt: Type.Optional(EpochMs()),
    firstDetected: Type.Optional(EpochMs()),
    assignees: Type.Optional(KeyRefs('people (the resource’s assignees), in order')),
    tags: Type.Optional(Type.Array(Label(), { maxItems: 50, description: 'In order; at most 50.' })),
    region: Type.Optional(Label()),
    service: Type.Optional(Label()),
    accountID: Type.Optional(Label()),
    environment: Type.Optional(Label()),
    entities: Type.Optional(KeyRefs('entities')),
    link: Type.Optional(Type.String({ minLength: 1, maxLength: URL_MAX_LENGTH })),
    description: Type.Optional(Text(NOTE_MAX_LENGTH)),
  },
  { additionalProperties: false, description: 'A flagged resource, of any status.' },
);
export type ProgramTestResource = Static<typeof ProgramTestResource>;

export const ProgramTestScan = Type.Object(
  { scannedOn: EpochMs(), status: Type.Enum([...TEST_STATUSES]) },
  { additionalProperties: false },
);
export type ProgramTestScan = Static<typeof ProgramTestScan>;

export const ProgramTest = Type.Object(
  {
    key: TestKey,
    name: Name(),
    kind: Type.Optional(Type.Enum([...TEST_KINDS], { description: 'Default automated.' })),
    result: Type.Optional(
      Type.Enum([...TEST_RESULTS], {
        description: 'The stored result (default passing). GET shows `affected` for a passing test whose integration is failing.',
      }),
    ),
    integrationFailing: Type.Optional(Type.Boolean({ description: 'Default false.' })),
    checks: Type.Optional(
      Type.Array(CheckName, {
        maxItems: TEST_CHECKS_MAX,
        uniqueItems: true,
        description: `Extension: the checks the test is made of (at most ${TEST_CHECKS_MAX}). A checker’s report imported with POST /v1/tests/results/imports becomes the test’s run from these checks’ results (docs/check-results.md).`,
      }),
    ),
    applications: Type.Optional(Type.Array(Name(), { maxItems: LIST_MAX_ITEMS, uniqueItems: true, description: 'Application names.' })),
    description: Type.Optional(OrNull(Text())),
    remediation: Type.Optional(OrNull(Text())),
    notes: Type.Optional(OrNull(Text(NOTE_MAX_LENGTH))),
    effortEstimate: Type.Optional(OrNull(Type.Enum([...EFFORT_ESTIMATES]))),
    ignoreReason: Type.Optional(OrNull(Text(NOTE_MAX_LENGTH))),
    lastScannedOn: Type.Optional(OrNull(EpochMs())),
    assignees: Type.Optional(ProgramAssignees),
    entities: Type.Optional(KeyRefs('entities (the test’s products)')),
    controls: Type.Optional(KeyRefs('the controls it is linked to')),
    requirements: Type.Optional(RequirementRefs),
    risks: Type.Optional(KeyRefs('risks')),
    tickets: Type.Optional(ProgramTickets),
    resources: Type.Optional(
      Type.Array(ProgramTestResource, { maxItems: TEST_RESOURCES_MAX, description: `Flagged resources; at most ${TEST_RESOURCES_MAX}.` }),
    ),
    history: Type.Optional(
      Type.Array(ProgramTestScan, {
        maxItems: TEST_HISTORY_MAX,
        description: `The testHistory expansion, oldest first; at most ${TEST_HISTORY_MAX}.`,
      }),
    ),
    addedOn: StampFields.addedOn,
    modifiedOn: StampFields.modifiedOn,
  },
  { additionalProperties: false },
);
export type ProgramTest = Static<typeof ProgramTest>;
