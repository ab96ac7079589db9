// A third-party finding as a program document carries it (docs/program-documents.md,
// "Vulnerabilities"): every field GET /v1/vulnerabilities/{vulnerabilityId} shows with all its
// expansions. Its key is its ID in the spec's form, `<source>%23<finding key>`, so a finding keeps
// its public ID in every organization a document is applied to; custom field values, assignees
// and risks name their records by key.
import { Type, type Static } from 'typebox';
import { SEVERITIES, VULNERABILITY_SOURCES, VULNERABILITY_STATUSES } from '../../shared/vocabulary.ts';
import { EpochMs, KeyRef, KeyRefs, Name, NAME_MAX_LENGTH, OrNull, ProgramAssignees, StampFields, Url } from '../kinds/fields.ts';
import { FIX_AVAILABLE } from './shape.ts';
import { MAX_CUSTOM_FIELD_VALUE } from './write-schema.ts';

/** `<source>%23<finding key>`: one of the spec's sources, then a finding key of 1-255 characters without spaces. */
export const FINDING_ENTRY_KEY = new RegExp(`^(${VULNERABILITY_SOURCES.join('|')})%23(\\S{1,${NAME_MAX_LENGTH}})$`);

export const FindingKey = Type.String({
  minLength: 4,
  maxLength: 300,
  pattern: FINDING_ENTRY_KEY.source,
  description: `The finding’s ID as the API shows it: its source (${VULNERABILITY_SOURCES.join(', ')}), \`%23\`, then the finding key (\`snyk%23CVE-2024-12345\`).`,
});

/** Longest description, remediation and steps to reproduce (the create body's bound). */
export const FINDING_TEXT_MAX_LENGTH = 750;
/** Most affected resources of one finding (docs/decisions/writes-and-uploads.md, "Vulnerability create and update"). */
export const FINDING_RESOURCES_MAX = 100;

const FindingText = Type.String({ maxLength: FINDING_TEXT_MAX_LENGTH, description: `Up to ${FINDING_TEXT_MAX_LENGTH} characters.` });

export const ProgramAffectedResource = Type.Object(
  {
    name: Name(),
    type: Name(),
    tags: Type.Optional(Type.Array(Name(), { maxItems: 3, description: 'At most 3 tags, in order.' })),
    firstSeen: Type.Optional(EpochMs('Default: the finding’s firstSeen.')),
    status: Type.Optional(Type.Enum([...VULNERABILITY_STATUSES], { description: 'Default open.' })),
  },
  { additionalProperties: false },
);
export type ProgramAffectedResource = Static<typeof ProgramAffectedResource>;

export const ProgramFindingValue = Type.Object(
  {
    field: KeyRef('a custom field of findings'),
    value: Type.String({ minLength: 1, maxLength: MAX_CUSTOM_FIELD_VALUE, description: 'A dropdown takes one of its options.' }),
  },
  { additionalProperties: false },
);
export type ProgramFindingValue = Static<typeof ProgramFindingValue>;

export const ProgramFindingTicket = Type.Object(
  { id: Name(NAME_MAX_LENGTH, "The ticket's ID in its tracker."), source: Name(), url: Url() },
  { additionalProperties: false },
);

export const ProgramVulnerability = Type.Object(
  {
    key: FindingKey,
    title: Name(),
    status: Type.Optional(Type.Enum([...VULNERABILITY_STATUSES], { description: 'Default open.' })),
    severity: Type.Enum([...SEVERITIES]),
    cveId: Type.Optional(
      Type.String({ maxLength: 64, pattern: '^(CVE-[0-9]{4}-[0-9]{4,})?$', description: 'A CVE ID, or "" (the default) for none.' }),
    ),
    fixAvailable: Type.Optional(OrNull(Type.Enum([...FIX_AVAILABLE]))),
    description: Type.Optional(OrNull(FindingText)),
    remediation: Type.Optional(OrNull(FindingText)),
    stepsToReproduce: Type.Optional(OrNull(FindingText)),
    firstSeen: Type.Optional(EpochMs('Default: when it is first applied.')),
    lastScannedOn: Type.Optional(OrNull(EpochMs())),
    cvssScore: Type.Optional(OrNull(Type.Number({ minimum: 0, maximum: 10 }))),
    sla: Type.Optional(OrNull(Type.Integer({ minimum: 0, maximum: 36_500, description: 'Days allowed to fix the finding.' }))),
    reportLink: Type.Optional(OrNull(Url())),
    assignees: Type.Optional(ProgramAssignees),
    customFields: Type.Optional(
      Type.Array(ProgramFindingValue, {
        maxItems: 100,
        description: 'Values of the organization’s custom fields of findings; one per field.',
      }),
    ),
    affectedResources: Type.Optional(
      Type.Array(ProgramAffectedResource, { maxItems: FINDING_RESOURCES_MAX, description: `In order; at most ${FINDING_RESOURCES_MAX}.` }),
    ),
    tickets: Type.Optional(Type.Array(ProgramFindingTicket, { maxItems: 100 })),
    risks: Type.Optional(KeyRefs('risks')),
    ...StampFields,
  },
  { additionalProperties: false },
);
export type ProgramVulnerability = Static<typeof ProgramVulnerability>;
