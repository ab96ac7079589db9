// What an upload of attachments answers, defined once: the route serializes and documents it with
// this schema, and uploadAttachments (upload.ts) returns the type derived from it.
import { Type, type Static } from 'typebox';
import { EpochMs } from '../shared-schema.ts';

export const UploadResult = Type.Object({ evidenceId: Type.String(), modifiedOn: EpochMs });
export type UploadResult = Static<typeof UploadResult>;
