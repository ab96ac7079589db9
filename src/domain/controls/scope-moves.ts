// A control's scope as a state machine (docs/decisions/program-writes.md, "Control scope";
// docs/program-moves.md). Both moves are allowed; what each needs is the reason:
// - in_scope → out_of_scope: needs `outOfScopeReason`; stamps `markedOutOfScopeBy`;
// - out_of_scope → in_scope: clears the reason and the stamp; a reason may not be sent with it;
// - out_of_scope → out_of_scope: a new reason replaces the old one (and re-stamps);
// - in_scope → in_scope: nothing changes; a reason may not be sent.
import type { FieldIssue } from '../../shared/errors.ts';
import type { CONTROL_SCOPES } from '../../shared/vocabulary.ts';

export type ControlScope = (typeof CONTROL_SCOPES)[number];

/** For each scope, the scopes a PATCH can lead to (staying put included). */
export const SCOPE_MOVES: Readonly<Record<ControlScope, readonly ControlScope[]>> = {
  in_scope: ['in_scope', 'out_of_scope'],
  out_of_scope: ['out_of_scope', 'in_scope'],
};

export interface ScopeOutcome {
  scope: ControlScope;
  /** the reason after the move (null: none) */
  reason: string | null;
  /** whether the move (re)stamps markedOutOfScopeBy with the actor */
  stamps: boolean;
}

/** The scope and reason a PATCH leads to from `current`, or the issues that refuse it. */
export function scopeAfter(
  current: { scope: ControlScope; reason: string | null },
  sent: { controlScope?: ControlScope; outOfScopeReason?: string },
): ScopeOutcome | FieldIssue[] {
  const next = sent.controlScope ?? current.scope;
  const allowed = SCOPE_MOVES[current.scope];
  if (!allowed.includes(next)) {
    return [
      {
        field: 'controlScope',
        message: `cannot move from ${current.scope} to ${next}; allowed from ${current.scope}: ${allowed.join(', ')}`,
      },
    ];
  }
  if (next === 'out_of_scope') {
    if (current.scope === 'in_scope') {
      if (sent.outOfScopeReason === undefined) {
        return [
          {
            field: 'outOfScopeReason',
            message: 'is required to move the control from in_scope to out_of_scope (allowed from in_scope: out_of_scope with a reason)',
          },
        ];
      }
      return { scope: next, reason: sent.outOfScopeReason, stamps: true };
    }
    if (sent.outOfScopeReason === undefined || sent.outOfScopeReason === current.reason) {
      return { scope: next, reason: current.reason, stamps: false };
    }
    return { scope: next, reason: sent.outOfScopeReason, stamps: true };
  }
  if (sent.outOfScopeReason !== undefined) {
    return [
      {
        field: 'outOfScopeReason',
        message:
          current.scope === 'in_scope'
            ? 'only a control that is out of scope has a reason: send controlScope out_of_scope with it'
            : 'must not be sent when the control goes back in_scope (its reason is cleared)',
      },
    ];
  }
  return { scope: next, reason: null, stamps: false };
}
