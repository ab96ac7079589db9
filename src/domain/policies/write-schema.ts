// The bodies of the policy lifecycle moves and of PATCH /v1/policies/{policyId}, defined once: the
// routes validate and document them with these schemas, the verbs (lifecycle.ts) take their types.
import { Type, type Static } from 'typebox';
import { LinkName, LinkNote, LinkUrl, MAX_LINKS_PER_RECORD, MAX_LINKS_PER_REQUEST, Reason } from '../artifacts/write-schema.ts';

export const MAX_VERSION_NAME_LENGTH = 64;

export const PolicyDocumentLinkInput = Type.Object(
  { displayName: LinkName, url: LinkUrl, note: Type.Optional(LinkNote) },
  { additionalProperties: false },
);
export type PolicyDocumentLinkInput = Static<typeof PolicyDocumentLinkInput>;

export const PublishPolicyBody = Type.Object(
  {
    versionName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_VERSION_NAME_LENGTH,
        pattern: '\\S',
        description: `The new version's name (1-${MAX_VERSION_NAME_LENGTH} characters, not one the policy has published before). Default: the next minor version after the last one (\`1.2\` after \`1.1\`), \`1.0\` for a first publication.`,
      }),
    ),
  },
  { additionalProperties: false, description: 'Optional: send no body, `{}`, or a `versionName`.' },
);
export type PublishPolicyBody = Static<typeof PublishPolicyBody>;

export const UpdatePolicyBody = Type.Object(
  {
    isRelevant: Type.Optional(Type.Boolean({ description: '`false` needs `notRelevantReason`; `true` clears it.' })),
    notRelevantReason: Type.Optional(Reason('Why the policy does not apply; only while it is (or becomes) not relevant.')),
    nextReviewDate: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000 }), Type.Null()], {
        description: 'Epoch ms of the next review; `null` clears it.',
      }),
    ),
    documents: Type.Optional(
      Type.Array(PolicyDocumentLinkInput, {
        minItems: 1,
        maxItems: MAX_LINKS_PER_REQUEST,
        description: `External links added as documents (no file), at most ${MAX_LINKS_PER_REQUEST} per request and ${MAX_LINKS_PER_RECORD} per policy. A \`not_uploaded\` policy becomes \`draft\`; other statuses are kept.`,
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, description: 'At least one field; fields not sent are kept.' },
);
export type UpdatePolicyBody = Static<typeof UpdatePolicyBody>;
