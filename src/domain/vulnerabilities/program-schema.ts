// A third-party finding as a program document writes it (docs/program-documents.md,
// "Findings"): every field GET /v1/vulnerabilities/{id} shows with all its expansions. Its key is
// its public ID in the spec's form, `<source>%23<finding key>`, so the finding keeps its ID in
// every organization the document is applied to.
import { Type, type Static } from 'typebox';
import { SEVERITIES, VULNERABILITY_SOURCES, VULNERABILITY_STATUSES } from '../vocabulary.ts';
import { EntryKey, KeyList, Moment, Name, NullableMoment, PersonKeyList, Url } from '../program-refs.ts';
import { FIX_AVAILABLE } from './shape.ts';
import { MAX_CUSTOM_FIELD_VALUE } from './write-schema.ts';

/** `<source>%23<finding key>`: the source is one of the spec's, the finding key 1-255 characters without spaces. */
export const FINDING_ENTRY_KEY = new RegExp(`^(${VULNERABILITY_SOURCES.join('|')})%23(\\S{1,255})$`);

export const FindingKey = Type.String({
  minLength: 4,
  maxLength: 280,
  pattern: FINDING_ENTRY_KEY.source,
  'x-pattern-message': `must be <source>%23<finding key> with a source of ${VULNERABILITY_SOURCES.join(', ')} (for example snyk%23CVE-2024-12345)`,
  description: 'The finding’s ID as the API shows it: its source, `%23`, then the finding key (`snyk%23CVE-2024-12345`).',
});

const Text750 = Type.String({ maxLength: 750 });

export const FindingResourceEntry = Type.Object(
  {
    name: Name,
    type: Name,
    tags: Type.Optional(Type.Array(Name, { maxItems: 3, description: 'At most 3 tags.' })),
    firstSeen: Type.Optional(Moment),
    status: Type.Optional(Type.Enum([...VULNERABILITY_STATUSES], { description: 'Default `open`.' })),
  },
  { additionalProperties: false, description: 'An affected resource; `firstSeen` defaults to the finding’s.' },
);

export const FindingCustomValue = Type.Object(
  { field: EntryKey, value: Type.String({ minLength: 1, maxLength: MAX_CUSTOM_FIELD_VALUE }) },
  { additionalProperties: false, description: 'A custom field (by key) and the finding’s value; a dropdown takes one of its options.' },
);

export const FindingTicket = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 255 }), source: Type.String({ minLength: 1, maxLength: 64 }), url: Url },
  { additionalProperties: false },
);

export const FindingEntry = Type.Object(
  {
    key: FindingKey,
    title: Name,
    status: Type.Optional(Type.Enum([...VULNERABILITY_STATUSES], { description: 'Default `open`.' })),
    severity: Type.Enum([...SEVERITIES]),
    cveId: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: '^(CVE-[0-9]{4}-[0-9]{4,})?$',
        'x-pattern-message': 'must be a CVE ID (CVE-2024-12345) or ""',
        description: 'Default `""`.',
      }),
    ),
    fixAvailable: Type.Optional(Type.Enum([...FIX_AVAILABLE])),
    description: Type.Optional(Text750),
    remediation: Type.Optional(Text750),
    stepsToReproduce: Type.Optional(Text750),
    firstSeen: Type.Optional(Moment),
    lastScannedOn: Type.Optional(Moment),
    cvssScore: Type.Optional(Type.Number({ minimum: 0, maximum: 10 })),
    sla: Type.Optional(Type.Integer({ minimum: 0, maximum: 36_500, description: 'Days allowed to fix the finding.' })),
    reportLink: Type.Optional(Url),
    addedBy: Type.Optional(EntryKey),
    addedOn: Type.Optional(Moment),
    lastModifiedBy: Type.Optional(EntryKey),
    modifiedOn: Type.Optional(NullableMoment),
    assignees: Type.Optional(PersonKeyList('People (by key); the first is the primary assignee.')),
    customFields: Type.Optional(Type.Array(FindingCustomValue, { maxItems: 100 })),
    affectedResources: Type.Optional(Type.Array(FindingResourceEntry, { maxItems: 100 })),
    tickets: Type.Optional(Type.Array(FindingTicket, { maxItems: 100 })),
    risks: Type.Optional(KeyList('Risks (by key).')),
  },
  { additionalProperties: false },
);

export type FindingResourceEntry = Static<typeof FindingResourceEntry>;
export type FindingCustomValue = Static<typeof FindingCustomValue>;
export type FindingEntry = Static<typeof FindingEntry>;
