// The shapes of a vulnerability finding: the list item and the get shape (which create and update
// answer with too).
import { Type, type Static } from 'typebox';
import { SEVERITIES, VULNERABILITY_SOURCES, VULNERABILITY_STATUSES } from '../../shared/vocabulary.ts';
import { Assignee, EpochMs, MappedRisk, NullableEpochMs, PersonStamp } from '../../shared/sub-objects.ts';

export const VulnerabilityId = Type.String({
  description: 'Already URL-encoded: the source, `%23`, then the finding key (for example `api%23VUL-0001`). Use it in paths as is.',
});

export const CustomField = Type.Object({
  customFieldId: Type.String(),
  title: Type.String(),
  fieldType: Type.String({ description: '`text_box` or `dropdown`.' }),
  options: Type.Array(Type.String(), { description: 'The choices of a dropdown; empty for a text box.' }),
  fieldValue: Type.String({ description: 'The value stored on the finding; `""` when none is stored.' }),
});

const defaults = {
  vulnerabilityId: VulnerabilityId,
  title: Type.String(),
  status: Type.Enum([...VULNERABILITY_STATUSES]),
  severity: Type.Enum([...SEVERITIES]),
  source: Type.Enum([...VULNERABILITY_SOURCES]),
  assignees: Type.Array(Assignee),
  cveId: Type.String({ description: '`""` when the finding has no CVE.' }),
  customFields: Type.Array(CustomField, { description: 'Every custom field defined for findings, in order, with this finding’s value.' }),
};

/** A list item: default fields plus the optional ones asked for through `fields`. */
export const VulnerabilitySummary = Type.Object({
  ...defaults,
  cvssScore: Type.Optional(Type.Number()),
  resourcesCount: Type.Optional(Type.Integer({ description: 'Affected resources of any status.' })),
  firstSeen: Type.Optional(EpochMs),
});

export const AffectedResource = Type.Object({
  name: Type.String(),
  type: Type.String(),
  tags: Type.Array(Type.String()),
  firstSeen: EpochMs,
  status: Type.Enum([...VULNERABILITY_STATUSES]),
});

export const VulnerabilityTicket = Type.Object({ id: Type.String(), url: Type.String(), source: Type.String() });

/** The get shape. Fields without a value are left out, except `modifiedOn` (null) and arrays. */
export const VulnerabilityDetail = Type.Object({
  ...defaults,
  description: Type.Optional(Type.String()),
  firstSeen: EpochMs,
  lastScannedOn: Type.Optional(EpochMs),
  cvssScore: Type.Optional(Type.Number()),
  sla: Type.Optional(Type.Number({ description: 'Days allowed to fix the finding.' })),
  reportLink: Type.Optional(Type.String()),
  remediation: Type.Optional(Type.String()),
  stepsToReproduce: Type.Optional(Type.String()),
  addedBy: Type.Optional(PersonStamp),
  addedOn: EpochMs,
  lastModifiedBy: Type.Optional(PersonStamp),
  modifiedOn: NullableEpochMs,
  affectedResources: Type.Optional(
    Type.Array(AffectedResource, { description: 'Only with fields=affectedResources; filtered by resourceStatus.' }),
  ),
  tickets: Type.Optional(Type.Array(VulnerabilityTicket)),
  mappedRisks: Type.Optional(Type.Array(MappedRisk)),
});

export type CustomField = Static<typeof CustomField>;
export type VulnerabilitySummary = Static<typeof VulnerabilitySummary>;
export type AffectedResource = Static<typeof AffectedResource>;
export type VulnerabilityTicket = Static<typeof VulnerabilityTicket>;
export type VulnerabilityDetail = Static<typeof VulnerabilityDetail>;
