// A control as a program document carries it: every stored field (GET /v1/controls/{controlId}
// shows them all), its assignees and entities, the requirements it meets and the risks it
// treats. Artifacts name the controls they are linked to (policies, evidence and tests carry
// `controls`), so a control's entry never lists its artifacts.
import { Type, type Static } from 'typebox';
import { CONTROL_SCOPES, FUNCTION_GROUPINGS } from '../../shared/vocabulary.ts';
import {
  KeyRefs,
  LIST_MAX_ITEMS,
  Name,
  NOTE_MAX_LENGTH,
  OrNull,
  PersonRef,
  ProgramAssignees,
  RecordKey,
  RequirementRefs,
  StampFields,
  Text,
} from '../kinds/fields.ts';

export const ProgramControl = Type.Object(
  {
    key: RecordKey,
    code: Name(100, 'What the program calls it, such as `CTL-0001`.'),
    name: Name(),
    description: Type.Optional(OrNull(Text())),
    domain: Name(),
    functionGrouping: Type.Enum([...FUNCTION_GROUPINGS]),
    scope: Type.Optional(Type.Enum([...CONTROL_SCOPES], { description: 'Default in_scope.' })),
    outOfScopeReason: Type.Optional(OrNull(Text(NOTE_MAX_LENGTH, 'Why it is out of scope (only when it is).'))),
    markedOutOfScopeBy: Type.Optional(PersonRef('marked it out of scope')),
    questions: Type.Optional(Type.Array(Text(NOTE_MAX_LENGTH), { maxItems: LIST_MAX_ITEMS, description: 'In order.' })),
    assignees: Type.Optional(ProgramAssignees),
    entities: Type.Optional(KeyRefs('entities')),
    requirements: Type.Optional(RequirementRefs),
    risks: Type.Optional(KeyRefs('risks')),
    ...StampFields,
  },
  { additionalProperties: false },
);
export type ProgramControl = Static<typeof ProgramControl>;
