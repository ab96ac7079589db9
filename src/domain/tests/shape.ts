// What the test list and get-one share besides their schemas (./schema.ts): the field sets, the
// computed status and the default fields every shape starts from.
import { testStatus, type TestStatus } from '../compliance/rules.ts';
import type { Assignee, Entity } from '../../shared/sub-objects.ts';
import type { TestRow } from '../../storage/db/repositories/artifacts/tests.ts';
import type { Application } from '../../shared/sub-objects.ts';
import type { TestSummary } from './schema.ts';
import type { TEST_RESOURCE_STATUSES } from '../../shared/vocabulary.ts';

export type TestResourceStatus = (typeof TEST_RESOURCE_STATUSES)[number];

/** Optional fields of a list item. */
export const TEST_LIST_FIELDS = ['mappedFrameworkIds', 'effortEstimate', 'ignoreReason', 'addedOn', 'modifiedOn', 'ticketsCount'] as const;
export type TestListField = (typeof TEST_LIST_FIELDS)[number];
/** Expansions of the get shape. */
export const TEST_EXPANSIONS = ['tickets', 'mappedRisks', 'testHistory'] as const;
export type TestExpansion = (typeof TEST_EXPANSIONS)[number];
/** Flagged-resource statuses shown by default on get-one. */
export const DEFAULT_TEST_RESOURCE_STATUSES = ['fix_required'] as const;

/** The status the API reports: the stored result, with a passing test whose integration fails reported as `affected`. */
export const statusOf = (row: TestRow): TestStatus => testStatus(row.result, row.integrationFailing);

/** The default fields every shape starts from. */
export function baseTestFields(
  row: TestRow,
  links: { applications: Map<string, Application[]>; assignees: Map<string, Assignee[]>; entities: Map<string, Entity[]> },
): Pick<TestSummary, 'testId' | 'testName' | 'status' | 'applications' | 'assignees' | 'entities'> {
  return {
    testId: row.id,
    testName: row.name,
    status: statusOf(row),
    applications: links.applications.get(row.id) ?? [],
    assignees: links.assignees.get(row.id) ?? [],
    entities: links.entities.get(row.id) ?? [],
  };
}
