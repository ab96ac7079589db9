// The shapes of a test (automated or cloud): the list item and the get-one answer with its
// flagged resources.
import { Type, type Static } from 'typebox';
import { Application } from '../../shared/sub-objects.ts';
import { TEST_RESOURCE_STATUSES, TEST_STATUSES } from '../../shared/vocabulary.ts';
import {
  Assignee,
  Entity,
  EpochMs,
  MappedControl,
  MappedFramework,
  MappedRequirement,
  MappedRisk,
  NullableEpochMs,
  PersonStamp,
  Ticket,
} from '../../shared/sub-objects.ts';

const defaults = {
  testId: Type.String({ description: '`test_` followed by a slug; automated and cloud tests share one ID space.' }),
  testName: Type.String(),
  status: Type.Enum([...TEST_STATUSES], { description: 'Computed: a passing test whose integration fails is `affected`.' }),
  applications: Type.Array(Application),
  assignees: Type.Array(Assignee),
  entities: Type.Array(Entity, { description: "The test's associated products." }),
};

export const TestSummary = Type.Object({
  ...defaults,
  mappedFrameworkIds: Type.Optional(Type.Array(Type.String())),
  effortEstimate: Type.Optional(Type.String()),
  ignoreReason: Type.Optional(Type.String()),
  addedOn: Type.Optional(EpochMs),
  modifiedOn: Type.Optional(NullableEpochMs),
  ticketsCount: Type.Optional(Type.Integer()),
});

export const TestResource = Type.Object({
  resourceId: Type.String(),
  name: Type.String(),
  status: Type.Enum([...TEST_RESOURCE_STATUSES]),
  lastScannedAt: Type.Optional(EpochMs),
  firstDetected: Type.Optional(EpochMs),
  assignees: Type.Array(PersonStamp),
  tags: Type.Array(Type.String()),
  region: Type.Optional(Type.String()),
  service: Type.Optional(Type.String()),
  accountID: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  entities: Type.Array(Entity),
  link: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
});

export const TestHistoryEntry = Type.Object({ scannedOn: EpochMs, status: Type.Enum([...TEST_STATUSES]) });

export const TestDetail = Type.Object({
  ...defaults,
  mappedFrameworks: Type.Array(MappedFramework),
  checks: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'Extension: the checks the test is made of (`<tool>:<id>`), whose results in an imported checker’s report become its runs (POST /v1/tests/results/imports; docs/check-results.md). Absent when it names none.',
    }),
  ),
  description: Type.Optional(Type.String()),
  remediation: Type.Optional(Type.String()),
  mappedControls: Type.Array(MappedControl),
  mappedRequirements: Type.Array(MappedRequirement),
  lastScannedOn: Type.Optional(EpochMs),
  effortEstimate: Type.Optional(Type.String()),
  notes: Type.Optional(Type.String()),
  ignoreReason: Type.Optional(Type.String()),
  addedOn: EpochMs,
  modifiedOn: NullableEpochMs,
  resources: Type.Array(TestResource, { description: 'Flagged resources whose status is in resourceStatus.' }),
  tickets: Type.Optional(Type.Array(Ticket)),
  mappedRisks: Type.Optional(Type.Array(MappedRisk)),
  testHistory: Type.Optional(Type.Array(TestHistoryEntry, { description: 'Scans, oldest first.' })),
});

export type TestSummary = Static<typeof TestSummary>;
export type TestResource = Static<typeof TestResource>;
export type TestHistoryEntry = Static<typeof TestHistoryEntry>;
export type TestDetail = Static<typeof TestDetail>;
