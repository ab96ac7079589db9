// The body of PATCH /v1/controls/{controlId}, defined once: the schema validates the request and
// documents it, and the verb (update.ts) takes its type.
import { Type, type Static } from 'typebox';
import { CONTROL_SCOPES } from '../../shared/vocabulary.ts';

/** Longest out-of-scope reason accepted. */
export const MAX_OUT_OF_SCOPE_REASON = 2000;
/** Most assignees one control may have. */
export const MAX_CONTROL_ASSIGNEES = 20;

export const UpdateControlBody = Type.Object(
  {
    controlScope: Type.Optional(
      Type.Enum([...CONTROL_SCOPES], {
        description:
          '`out_of_scope` needs an `outOfScopeReason` (unless the control is already out of scope) and stamps `markedOutOfScopeBy`; `in_scope` clears both.',
      }),
    ),
    outOfScopeReason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_OUT_OF_SCOPE_REASON,
        pattern: '\\S',
        description: `Why the control is out of scope, 1-${MAX_OUT_OF_SCOPE_REASON} characters. Only for a control that is (or goes) out of scope.`,
      }),
    ),
    assigneeEmails: Type.Optional(
      Type.Array(Type.String({ format: 'email', maxLength: 255 }), {
        maxItems: MAX_CONTROL_ASSIGNEES,
        description: `People of the organization (case-insensitive), at most ${MAX_CONTROL_ASSIGNEES}; they replace the assignees, the first is the primary one. \`[]\` removes every assignee.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Only the fields sent change; at least one is needed.',
  },
);
export type UpdateControlBody = Static<typeof UpdateControlBody>;
