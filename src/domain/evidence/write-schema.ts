// What an upload of attachments answers, defined once: the route serializes and documents it with
// this schema, and uploadAttachments (upload.ts) returns the type derived from it.
import { Type, type Static } from 'typebox';

export const UploadResult = Type.Object({
  evidenceId: Type.String(),
  // the same schema as EpochMs of src/http/schemas/resources.ts, which the domain cannot import
  modifiedOn: Type.Integer({ description: 'Unix epoch milliseconds.' }),
});
export type UploadResult = Static<typeof UploadResult>;
