// What an upload of attachments answers, defined once: the route serializes and documents it with
// this schema, and uploadAttachments (upload.ts) returns the type derived from it.
import { Type, type Static } from 'typebox';
import { EpochMs } from '../shared-schema.ts';

export const UploadResult = Type.Object({ evidenceId: Type.String(), modifiedOn: EpochMs });
export type UploadResult = Static<typeof UploadResult>;

/** Longest reason (a rejection, why a record is not relevant) and link note accepted. */
export const MAX_REASON_LENGTH = 2000;
/** External links one PATCH may add, and links a record may hold. */
export const MAX_LINKS_PER_REQUEST = 20;
export const MAX_LINKS_PER_RECORD = 100;

/** A reason a person writes: 1-2,000 characters, not blank. */
export const Reason = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_REASON_LENGTH,
    pattern: '\\S',
    description: `${description} 1-${MAX_REASON_LENGTH} characters, not blank.`,
  });

/** A link's name: 1-255 characters, not blank, without control or invisible characters. */
export const LinkName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '\\S',
  description: 'The name shown for the link; 1-255 characters.',
});
export const LinkUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'An http:// or https:// URL without a user name or password; at most 2048 characters.',
});
export const LinkNote = Type.String({ maxLength: MAX_REASON_LENGTH, description: `At most ${MAX_REASON_LENGTH} characters.` });

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

/** The body of a move that takes none (approve): nothing, or an empty object. */
export const EmptyMoveBody = Type.Object({}, { additionalProperties: false, description: 'No fields: send no body or `{}`.' });
