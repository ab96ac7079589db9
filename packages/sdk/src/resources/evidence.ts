// GET /v1/evidence, GET /v1/evidence/{evidenceId}, POST /v1/evidence/{evidenceId}/attachments, and
// the review extensions: POST …/approve, POST …/request_revision, PATCH /v1/evidence/{evidenceId}
import type {
  GetEvidenceQuery,
  ListEvidenceQuery,
  RequestEvidenceRevisionBody,
  UpdateEvidenceBody,
  UploadEvidenceAttachmentsPart,
} from '../generated/api.ts';
import { multipartBody } from '../uploads/multipart.ts';
import { prepareFile, type FileSource, type UploadFile } from '../uploads/sources.ts';
import { send, type ClientContext, type RequestOptions, type WriteOptions } from './operation.ts';

export interface UploadAttachmentsInput {
  /** 1-5 files, 100 MB together; the service accepts them by file-name extension */
  files: UploadFile[];
  /** when the evidence was produced: epoch ms or a Date, not in the future */
  evidenceDate: number | Date;
  /** stored with every file of the upload; at most 2,000 characters */
  note?: string;
}

/** Every part of the server's upload form must be written here, and nothing else (checked against the generated types). */
const FORM_PARTS = { evidenceDate: true, note: true, files: true } satisfies Record<UploadEvidenceAttachmentsPart, true>;
const part = (name: keyof typeof FORM_PARTS) => name;

export class Evidence {
  readonly #ctx: ClientContext;
  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
  }

  /** Every matching evidence record (no pagination). */
  list(query?: ListEvidenceQuery, options?: RequestOptions) {
    return send(this.#ctx, 'listEvidence', { query, options });
  }

  get(evidenceId: string, query?: GetEvidenceQuery, options?: RequestOptions) {
    return send(this.#ctx, 'getEvidence', { params: { evidenceId }, query, options });
  }

  /**
   * Uploads files to an evidence record as one multipart request, streamed: a file is read
   * chunk by chunk while it is sent. Retries resend the same parts under the same
   * Idempotency-Key; a one-shot stream that has been read cannot be resent, so a failure after
   * that is thrown without a retry (pass `stream: () => newStream()` to make it retriable).
   */
  async uploadAttachments(evidenceId: string, input: UploadAttachmentsInput, options?: WriteOptions) {
    if (!input || !Array.isArray(input.files) || input.files.length === 0) throw new TypeError('uploadAttachments needs at least one file');
    const date = input.evidenceDate instanceof Date ? input.evidenceDate.getTime() : input.evidenceDate;
    if (!Number.isSafeInteger(date) || date < 0)
      throw new TypeError('evidenceDate must be epoch milliseconds (a whole number) or a valid Date');
    const fields: Array<[string, string]> = [[part('evidenceDate'), String(date)]];
    if (input.note !== undefined) fields.push([part('note'), input.note]);
    const files: Array<[string, FileSource]> = [];
    for (const file of input.files) files.push([part('files'), await prepareFile(file)]);
    return send(this.#ctx, 'uploadEvidenceAttachments', { params: { evidenceId }, body: multipartBody(fields, files), options });
  }

  /** Approves evidence waiting for approval (`pending_approval` → `uploaded`); answers the record as `get` does. Extension. */
  approve(evidenceId: string, options?: WriteOptions) {
    return send(this.#ctx, 'approveEvidence', { params: { evidenceId }, json: {}, options });
  }

  /** Sends evidence back (→ `needs_revision`) with `rejectionReason`; answers the record as `get` does. Extension. */
  requestRevision(evidenceId: string, body: RequestEvidenceRevisionBody, options?: WriteOptions) {
    return send(this.#ctx, 'requestEvidenceRevision', { params: { evidenceId }, json: body, options });
  }

  /**
   * Changes relevance (`isRelevant: false` needs `notRelevantReason`) or adds external `links`
   * (attachments without a file, submitted like an upload); answers the record as `get` does. Extension.
   */
  update(evidenceId: string, body: UpdateEvidenceBody, options?: WriteOptions) {
    return send(this.#ctx, 'updateEvidence', { params: { evidenceId }, json: body, options });
  }
}
