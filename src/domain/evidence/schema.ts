// The shapes of an evidence record: the list item and the get-one answer, which extends it.
import { Type, type Static } from 'typebox';
import { EVIDENCE_COLLECTION_METHODS, EVIDENCE_SOURCES, EVIDENCE_STATUSES, TEST_STATUSES } from '../../shared/vocabulary.ts';
import { commonListProperties, commonOptionalProperties, fileEntryProperties, mappingProperties, Tickets } from '../artifacts/schema.ts';
import { EpochMs, PersonStamp } from '../../shared/sub-objects.ts';

/** An evidence list item; the get-one answer extends it. */
export const evidenceProperties = {
  evidenceId: Type.String(),
  evidenceName: Type.String(),
  status: Type.Enum([...EVIDENCE_STATUSES]),
  ...commonListProperties,
  gapCount: Type.Integer(),
  ...commonOptionalProperties,
  source: Type.Optional(Type.String({ description: `Where the request came from: one of ${EVIDENCE_SOURCES.join(', ')}.` })),
  evidenceCollectionMethod: Type.Optional(Type.String({ description: `One of ${EVIDENCE_COLLECTION_METHODS.join(', ')}.` })),
  ticketsCount: Type.Optional(Type.Integer()),
};

export const Evidence = Type.Object(evidenceProperties);

export const Attachment = Type.Object({
  ...fileEntryProperties,
  evidenceDate: EpochMs,
  isCurrentPeriod: Type.Boolean({ description: 'Whether now lies within [periodStart, periodEnd]; false when there is no period.' }),
  periodStart: Type.Optional(EpochMs),
  periodEnd: Type.Optional(EpochMs),
});

/** A test the evidence record is mapped to, with the test's computed status. */
export const MappedTest = Type.Object({ testId: Type.String(), testName: Type.String(), status: Type.Enum([...TEST_STATUSES]) });

export const EvidenceDetail = Type.Object({
  ...evidenceProperties,
  evidenceRequirementText: Type.Optional(Type.String()),
  ...mappingProperties,
  revisionRequestedBy: Type.Optional(PersonStamp),
  revisionRequestedOn: Type.Optional(EpochMs),
  rejectionReason: Type.Optional(Type.String()),
  statusReason: Type.Optional(
    Type.String({
      description:
        'Extension: why the record is in its status, when time moved it there (`needs_attention`: the period of the latest upload has ended and nothing covers the current one). Absent otherwise.',
    }),
  ),
  mappedTests: Type.Optional(Type.Array(MappedTest)),
  gaps: Type.Optional(Type.Array(Type.String())),
  attachments: Type.Optional(Type.Array(Attachment, { description: 'Empty while the status is not_uploaded.' })),
  tickets: Type.Optional(Tickets),
});

export type Evidence = Static<typeof Evidence>;
export type Attachment = Static<typeof Attachment>;
export type MappedTest = Static<typeof MappedTest>;
export type EvidenceDetail = Static<typeof EvidenceDetail>;
