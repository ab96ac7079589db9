// The test's statuses as a state machine under pushed results (docs/decisions/program-writes.md,
// "Test results"; docs/program-moves.md). A result says `passing` or `fix_required`; the status the
// API shows follows, with a passing result read as `affected` while the test's observability
// integration is failing. `ignored` is a person's decision: no result moves a test out of it.
import { testStatus, type TestStatus } from '../compliance/rules.ts';
import { validationFailed } from '../../shared/errors.ts';
import type { RESULT_STATUSES } from './write-schema.ts';

export type ResultStatus = (typeof RESULT_STATUSES)[number];

/** For each status the API shows, the statuses a pushed result can lead to (staying put included). */
export const RESULT_MOVES: Readonly<Record<TestStatus, readonly TestStatus[]>> = {
  fix_required: ['fix_required', 'passing', 'affected'],
  passing: ['passing', 'fix_required', 'affected'],
  affected: ['affected', 'fix_required', 'passing'],
  ignored: [],
};

/**
 * The status a test shows after a result, or a refusal naming `status` that says which moves are
 * allowed from where the test is. `integrationFailing` is the test's integration state.
 */
export function statusAfterResult(current: TestStatus, pushed: ResultStatus, integrationFailing: boolean): TestStatus {
  const next = testStatus(pushed, integrationFailing);
  if (!RESULT_MOVES[current].includes(next)) {
    const allowed = RESULT_MOVES[current];
    throw validationFailed(
      [
        {
          field: 'status',
          message:
            allowed.length === 0
              ? `cannot be recorded: the test is ${current}, and no pushed result moves a test from ${current} (a person ignored it; un-ignore it first)`
              : `cannot move the test from ${current} to ${next}; allowed from ${current}: ${allowed.join(', ')}`,
        },
      ],
      `A pushed result cannot move a test that is ${current}.`,
    );
  }
  return next;
}
