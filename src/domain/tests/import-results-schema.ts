// The answer of a check-results import (POST /v1/tests/results/imports, an extension; issue 38):
// what the report was read as, what it did to the tests that name its checks, and the checks no
// test names, counted and listed so that a team can map them. Defined once, used to type and to
// serialize; the HTTP door documents `format` with the registry's names (src/http/schemas/
// check-imports.ts).
import { Type, type Static } from 'typebox';

/** Most unmatched checks the answer lists by name (all are counted). */
export const MAX_UNMATCHED_LISTED = 1000;

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const UnmatchedCheck = Type.Object({
  check: Type.String({ description: 'The check, as a test’s `checks` would name it (`prowler:iam_root_mfa_enabled`).' }),
  results: Count('Its results in the report (one per resource).'),
});

export const TestResultsImport = Type.Object({
  format: Type.String({ description: 'The format the report was read as.' }),
  scope: Type.Union([Type.String(), Type.Null()], {
    description:
      'The scope the results were taken in: the request’s, else the report’s (a cloud account, a cluster); null when neither names one. A re-import of a scope replaces the resources that scope reported, and no other.',
  }),
  results: Count('Results read: one per check and resource. A check the tool left undecided (Prowler’s MANUAL) is no result.'),
  matched: Count('Results of checks that a test names.'),
  tests: Type.Object(
    {
      updated: Count('Tests whose run this report was: their status, resources or scan time moved.'),
      unchanged: Count('Tests whose checks the report gave the same results as before: not written, no event.'),
      older: Count('Tests already scanned after the report’s time: left as they are.'),
      ignored: Count('Ignored tests (a person’s decision): no report moves them.'),
    },
    { description: 'The tests naming a check the report has results for.' },
  ),
  testIds: Type.Array(Type.String(), { description: 'The IDs of the tests updated.' }),
  unmatched: Type.Object(
    {
      results: Count('Results of checks no test names.'),
      checks: Count('Checks no test names.'),
      list: Type.Array(UnmatchedCheck, {
        maxItems: MAX_UNMATCHED_LISTED,
        description: `Those checks by name, with their results, in name order; the first ${MAX_UNMATCHED_LISTED}.`,
      }),
    },
    { description: 'The checks of the report that no test names: add them to a test’s `checks` to take them in.' },
  ),
});

export type TestResultsImport = Static<typeof TestResultsImport>;
