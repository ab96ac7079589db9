// What an upload of attachments answers, and the bodies of the review moves and PATCH, defined
// once: the routes serialize, validate and document them with these schemas, and the verbs
// (upload.ts, review.ts) take the types derived from them.
import { Type, type Static } from 'typebox';
import { EpochMs } from '../../shared/sub-objects.ts';
import { LinkName, LinkNote, LinkUrl, MAX_LINKS_PER_RECORD, MAX_LINKS_PER_REQUEST, Reason } from '../artifacts/write-schema.ts';

export const UploadResult = Type.Object({ evidenceId: Type.String(), modifiedOn: EpochMs });
export type UploadResult = Static<typeof UploadResult>;

export const EvidenceLinkInput = Type.Object(
  {
    displayName: LinkName,
    url: LinkUrl,
    note: Type.Optional(LinkNote),
    evidenceDate: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 8_640_000_000_000_000,
        description: 'Epoch ms the link is evidence for (its period follows the record’s recurrence); not in the future. Default: now.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EvidenceLinkInput = Static<typeof EvidenceLinkInput>;

export const RequestEvidenceRevisionBody = Type.Object(
  { rejectionReason: Reason('Why the evidence is sent back, shown to the people who upload it.') },
  { additionalProperties: false },
);
export type RequestEvidenceRevisionBody = Static<typeof RequestEvidenceRevisionBody>;

export const UpdateEvidenceBody = Type.Object(
  {
    isRelevant: Type.Optional(Type.Boolean({ description: '`false` needs `notRelevantReason`; `true` clears it.' })),
    notRelevantReason: Type.Optional(Reason('Why the record does not apply; only while it is (or becomes) not relevant.')),
    links: Type.Optional(
      Type.Array(EvidenceLinkInput, {
        minItems: 1,
        maxItems: MAX_LINKS_PER_REQUEST,
        description: `External links added as attachments (no file), at most ${MAX_LINKS_PER_REQUEST} per request and ${MAX_LINKS_PER_RECORD} per record. Adding links submits evidence like an upload: the record becomes \`pending_approval\` when it has approvers, otherwise \`uploaded\`.`,
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, description: 'At least one field; fields not sent are kept.' },
);
export type UpdateEvidenceBody = Static<typeof UpdateEvidenceBody>;
