// The bodies of the finding writes, defined once: the schema validates the request and documents
// it, and the verbs (create.ts, update.ts) take the type derived from it.
import { Type, type Static } from 'typebox';
import { SEVERITIES } from '../../shared/vocabulary.ts';
import { FIX_AVAILABLE } from './shape.ts';

/** `VUL-` + four digits, or a CVE ID: `CVE-`, a four-digit year, `-`, then `0ddd` or four or more digits from 1-9. */
export const FINDING_KEY_PATTERN = /^(?:VUL-[0-9]{4}|CVE-[0-9]{4}-(?:0[0-9]{3}|[1-9][0-9]{3,}))$/;
/** Statuses a finding may be created with (`ignored` and `risk` come from triage, not creation). */
export const CREATE_STATUSES = ['open', 'acknowledged', 'closed'] as const;
/** Longest custom field value accepted. */
export const MAX_CUSTOM_FIELD_VALUE = 2000;

const text = (maxLength: number, description?: string) => Type.String({ maxLength, description });
/** Names and tags: 1-255 characters with at least one that is not a space. */
const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });

const AffectedResourceInput = Type.Object(
  {
    name: Name,
    type: Name,
    tags: Type.Optional(Type.Array(Name, { maxItems: 3, description: 'At most 3 tags.' })),
  },
  { additionalProperties: false },
);

export const CreateVulnerabilityBody = Type.Object(
  {
    vulnerabilityId: Type.String({
      pattern: FINDING_KEY_PATTERN.source,
      'x-pattern-message': 'must look like VUL-1234 or CVE-2024-12345',
      maxLength: 64,
      description:
        'The finding key: `VUL-` and four digits, or a CVE ID (`CVE-`, four-digit year, `-`, a sequence of four digits starting with 0 or four or more starting with 1-9). The finding is returned as `api%23<key>`.',
    }),
    title: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: '1-255 characters, not blank.' }),
    severity: Type.Enum([...SEVERITIES]),
    status: Type.Enum([...CREATE_STATUSES], { description: '`ignored` and `risk` cannot be chosen at creation.' }),
    description: Type.Optional(text(750, 'At most 750 characters.')),
    remediation: Type.Optional(text(750, 'At most 750 characters.')),
    stepsToReproduce: Type.Optional(text(750, 'At most 750 characters.')),
    fixAvailable: Type.Optional(Type.Enum([...FIX_AVAILABLE])),
    firstSeen: Type.Optional(Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description: 'Epoch ms; default: now.' })),
    affectedResources: Type.Optional(Type.Array(AffectedResourceInput, { maxItems: 100, description: 'At most 100; each starts `open`.' })),
    assigneeEmail: Type.Optional(
      Type.String({ format: 'email', maxLength: 255, description: 'A person of the organization (case-insensitive).' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Only these fields are accepted: `source`, custom fields and a report link cannot be sent.',
  },
);
export type CreateVulnerabilityBody = Static<typeof CreateVulnerabilityBody>;

const FieldId = Type.String({ minLength: 1, maxLength: 255 });
const FieldValue = Type.String({ maxLength: MAX_CUSTOM_FIELD_VALUE });

/** A custom field entry in either spelling the spec shows: `customFieldId`/`id`, `fieldValue`/`value`. */
export const CustomFieldInput = Type.Object(
  {
    customFieldId: Type.Optional(FieldId),
    id: Type.Optional(Type.String({ ...FieldId, description: 'Same as customFieldId.' })),
    fieldValue: Type.Optional(FieldValue),
    value: Type.Optional(Type.String({ ...FieldValue, description: 'Same as fieldValue.' })),
  },
  {
    additionalProperties: false,
    description:
      'Names a custom field by `customFieldId` (or `id`) and sets its value with `fieldValue` (or `value`). A dropdown takes one of its options; `""` clears any field.',
  },
);
export type CustomFieldInput = Static<typeof CustomFieldInput>;

export const UpdateVulnerabilityBody = Type.Object(
  {
    assigneeEmail: Type.Optional(
      Type.String({ format: 'email', maxLength: 255, description: 'Becomes the only assignee; a person of the organization.' }),
    ),
    reportLink: Type.Optional(Type.String({ maxLength: 2048, description: 'An http(s) URL; `""` clears the link.' })),
    customFields: Type.Optional(Type.Array(CustomFieldInput, { maxItems: 100 })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Only these fields are writable; `status` and `source` are refused.',
  },
);
export type UpdateVulnerabilityBody = Static<typeof UpdateVulnerabilityBody>;
