// A custom field definition (findings carry values of them), as a program document names it.
import { Type, type Static } from 'typebox';
import { LIST_MAX_ITEMS, Name, RecordKey } from '../kinds/fields.ts';

export const CUSTOM_FIELD_TYPES = ['text_box', 'dropdown'] as const;
export const CUSTOM_FIELD_RESOURCE_TYPES = ['vulnerability'] as const;

export const ProgramCustomField = Type.Object(
  {
    key: RecordKey,
    resourceType: Type.Enum([...CUSTOM_FIELD_RESOURCE_TYPES], { description: 'The kind of record the field belongs to.' }),
    title: Name(),
    fieldType: Type.Enum([...CUSTOM_FIELD_TYPES]),
    options: Type.Optional(
      Type.Array(Name(), {
        maxItems: LIST_MAX_ITEMS,
        uniqueItems: true,
        description: 'A dropdown’s choices, in order; empty for a text box.',
      }),
    ),
    position: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description: 'Order among the fields of its resource type; default: its place in the document.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ProgramCustomField = Static<typeof ProgramCustomField>;
