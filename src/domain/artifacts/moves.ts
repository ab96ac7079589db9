// The state machines of the artifacts people move (evidence review, the policy lifecycle): each
// move names the statuses it is allowed from, and a move asked for from any other status answers
// 400 validation_failed naming `status`, saying which moves are allowed from where the record is.
// The machines themselves are in evidence/review.ts and policies/lifecycle.ts, written out in
// docs/decisions/program-writes.md and docs/program-moves.md.
import { validationFailed, type ServiceError } from '../../shared/errors.ts';

/** A move's name (as in its path: `approve`, `request_revision`…) → the statuses it is allowed from. */
export type Moves<Status extends string> = Readonly<Record<string, readonly Status[]>>;

/** The moves allowed from `status`, in the machine's order. */
export function movesFrom<Status extends string>(moves: Moves<Status>, status: string): string[] {
  return Object.entries(moves)
    .filter(([, from]) => (from as readonly string[]).includes(status))
    .map(([name]) => name);
}

/** Throws the refusal of `move` when it is not allowed from `status`. */
export interface Machine<Status extends string> {
  moves: Moves<Status>;
  /** the record's kind, in words (`evidence record`, `policy`) */
  what: string;
  /** what is allowed from every status, said after the moves (evidence: an upload) */
  always?: string;
}

export function assertMoveAllowed<Status extends string>(machine: Machine<Status>, move: string, status: string): void {
  if ((machine.moves[move] as readonly string[]).includes(status)) return;
  throw moveRefused(machine, move, status);
}

export function moveRefused<Status extends string>(machine: Machine<Status>, move: string, status: string): ServiceError {
  const { moves, what } = machine;
  const allowed = movesFrom(moves, status);
  const from = `allowed from ${moves[move].join(', ')}`;
  const here = allowed.length > 0 ? `from ${status} the allowed moves are: ${allowed.join(', ')}` : `no move is allowed from ${status}`;
  const always = machine.always ? ` (${machine.always})` : '';
  return validationFailed(
    [{ field: 'status', message: `is ${status}: ${move} is ${from}; ${here}${always}` }],
    `The move ${move} is not allowed while the ${what} is ${status}.`,
  );
}
