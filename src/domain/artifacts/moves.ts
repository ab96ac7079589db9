// The state machines of the artifacts people move (evidence review, the policy lifecycle): each
// move names the statuses it is allowed from, and a move asked for from any other status answers
// 400 validation_failed naming `status`, saying which moves are allowed from where the record is.
// The machines themselves are in evidence/review.ts and policies/lifecycle.ts, written out in
// docs/decisions/program-writes.md and docs/program-moves.md.
import { validationFailed, type ServiceError } from '../errors.ts';

/** A move's name (as in its path: `approve`, `request_revision`…) → the statuses it is allowed from. */
export type Moves<Status extends string> = Readonly<Record<string, readonly Status[]>>;

/** The moves allowed from `status`, in the machine's order. */
export function movesFrom<Status extends string>(moves: Moves<Status>, status: string): string[] {
  return Object.entries(moves)
    .filter(([, from]) => (from as readonly string[]).includes(status))
    .map(([name]) => name);
}

/** Throws the refusal of `move` when it is not allowed from `status`. */
export function assertMoveAllowed<Status extends string>(moves: Moves<Status>, move: string, status: string, what: string): void {
  if ((moves[move] as readonly string[]).includes(status)) return;
  throw moveRefused(moves, move, status, what);
}

export function moveRefused<Status extends string>(moves: Moves<Status>, move: string, status: string, what: string): ServiceError {
  const allowed = movesFrom(moves, status);
  const from = `allowed from ${moves[move].join(', ')}`;
  const here = allowed.length > 0 ? `from ${status} the allowed moves are: ${allowed.join(', ')}` : `no move is allowed from ${status}`;
  return validationFailed(
    [{ field: 'status', message: `is ${status}: ${move} is ${from}; ${here}` }],
    `The move ${move} is not allowed while the ${what} is ${status}.`,
  );
}
