// GET /v1/vulnerabilities (cursor-paged), GET/PATCH /v1/vulnerabilities/{vulnerabilityId},
// POST /v1/vulnerabilities, POST /v1/vulnerabilities/imports (a scanner's file, streamed as the raw body)
import type {
  CreateVulnerabilityBody,
  GetVulnerabilityQuery,
  ImportTestResultsResponse,
  ImportVulnerabilitiesAccepted,
  ImportVulnerabilitiesResponse,
  ListVulnerabilitiesQuery,
  ListVulnerabilitiesResponse,
  UpdateVulnerabilityBody,
} from '../generated/api.ts';
import { PagedList } from '../pagination.ts';
import type { ScannerFormat } from '../types.ts';
import { rawBody } from '../uploads/raw.ts';
import { prepareFile, type ByteStream, type FileSource } from '../uploads/sources.ts';
import { followJob, type JobFollowOptions, type Job, type JobProgress } from './jobs.ts';
import { send, type ClientContext, type RequestOptions, type WithResponse, type WriteOptions } from './operation.ts';

export type VulnerabilityListQuery = Omit<ListVulnerabilitiesQuery, 'nextCursor'>;
export type VulnerabilityPage = WithResponse<ListVulnerabilitiesResponse>;

/** The page size `list()` asks for unless told otherwise: the largest, so a walk costs the fewest requests against the rate limit. */
export const DEFAULT_WALK_PAGE_SIZE = 100;

/**
 * A scanner's file: a path (streamed from disk, read again on a retry), the bytes (a Uint8Array or
 * Buffer, an ArrayBuffer or a Blob), a stream read once (a web ReadableStream, a Node.js stream or
 * any async iterable of bytes: not retried once read), or a function returning a new stream per
 * attempt (retried).
 */
export type ImportFile = string | Uint8Array | ArrayBuffer | Blob | ByteStream | (() => ByteStream);

export interface ImportVulnerabilitiesInput {
  /** the file's format: one of `ScannerFormat`, generated from the service's document (the service judges it) */
  format: ScannerFormat;
  /**
   * What was scanned (the image, repository or target). Findings of this scope and source that the
   * file no longer reports are closed. Default: the scope the file names, if its format has one.
   */
  scope?: string;
  file: ImportFile;
  /** ask the service to take the file as a job (`Prefer: respond-async`) whatever its size; the call follows it all the same */
  respondAsync?: boolean;
}

export interface ImportOptions extends WriteOptions, JobFollowOptions {
  /** each status of a job the import became (`queued`, `running`, `succeeded`, `failed`): a progress display */
  onJobStatus?: (status: Job['status']) => void;
  /** each new progress a look at the job shows (`stage`, `parsed`, `written` of `total`): a progress bar */
  onJobProgress?: (progress: JobProgress, job: Job) => void;
}

/** Every format is JSON; the service reads the body as the named format whatever its type, but says JSON is what it is. */
const IMPORT_CONTENT_TYPE = 'application/json';

export class Vulnerabilities {
  readonly #ctx: ClientContext;
  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
  }

  /**
   * Every matching finding, page after page: `for await (const v of client.vulnerabilities.list(q))`
   * or `.toArray({ limit })`, or `.pages()` for the pages themselves. `count` (50 or 100) is the
   * page size, 100 by default. Each page is one request, retried like any other.
   */
  list(
    query: VulnerabilityListQuery = {},
    options?: RequestOptions,
  ): PagedList<ListVulnerabilitiesResponse['data'][number], VulnerabilityPage> {
    const base = { ...query, count: query.count ?? DEFAULT_WALK_PAGE_SIZE };
    return new PagedList((nextCursor) => this.listPage({ ...base, nextCursor }, options));
  }

  /** One page; pass the previous page's `meta.nextCursor` (with the same filters) for the next. */
  listPage(query?: ListVulnerabilitiesQuery, options?: RequestOptions): Promise<VulnerabilityPage> {
    return send(this.#ctx, 'listVulnerabilities', { query, options });
  }

  /** `vulnerabilityId` as the service returns it (`api%23VUL-0001`); the decoded form (`api#VUL-0001`) works too. */
  get(vulnerabilityId: string, query?: GetVulnerabilityQuery, options?: RequestOptions) {
    return send(this.#ctx, 'getVulnerability', { params: { vulnerabilityId }, query, options });
  }

  /** Creates a finding (source `api`); 201 with the finding as `get` returns it. */
  create(body: CreateVulnerabilityBody, options?: WriteOptions) {
    return send(this.#ctx, 'createVulnerability', { json: body, options });
  }

  /** Changes `assigneeEmail`, `reportLink` (`""` clears it) or `customFields`; answers the finding as `get` does. */
  update(vulnerabilityId: string, body: UpdateVulnerabilityBody, options?: WriteOptions) {
    return send(this.#ctx, 'updateVulnerability', { params: { vulnerabilityId }, json: body, options });
  }

  /**
   * Imports a scanner's findings (an extension): the file goes as the request body, streamed (a
   * path or a stream is read chunk by chunk while it is sent, never held whole), with `format` and
   * `scope` in the query. One Idempotency-Key per call (or `options.idempotencyKey`), reused by its
   * retries: the same key, format, scope and file replays the first answer. Paths, bytes and stream
   * factories are resent on a retry; a one-shot stream cannot be, so a failure after it was read is
   * thrown without a retry. A file past the service's limit (IMPORT_MAX_BYTES, 100 MB by default) is
   * refused while it streams: `ValidationError` naming `file`; a malformed one names the JSON
   * pointer of its problem. Answers 200 with what the import did (created, updated, closed,
   * reopened, unchanged and the IDs of the findings it changed).
   *
   * A file the service takes as a job (larger than its IMPORT_JOB_THRESHOLD_BYTES, 8 MiB by
   * default, or any file with `respondAsync: true`) is answered 202; the call then follows the job
   * (`GET /v1/jobs/{id}`, waiting longer between looks, or as Retry-After says) and answers the same
   * as a 200, or throws the error the synchronous import would have (a `ValidationError` naming
   * the file's problem). `jobTimeoutMs` (default 30 minutes) bounds the wait: a `TimeoutError`,
   * while the job runs on.
   */
  async import(input: ImportVulnerabilitiesInput, options?: ImportOptions): Promise<WithResponse<ImportVulnerabilitiesResponse>> {
    return sendImport(
      this.#ctx,
      'importVulnerabilities',
      input,
      options,
      'import needs { format, file }',
      'a ScannerFormat: docs/scanner-formats.md',
    );
  }
}

/** The input every file import takes (a scanner's, a checker's). */
interface FileImportInput {
  format: string;
  scope?: string;
  file: ImportFile;
  respondAsync?: boolean;
}

/**
 * Sends a file import (`importVulnerabilities`, `importTestResults`): the input checked, the file
 * streamed as the raw body with `format` and `scope` in the query, and a 202 followed to its job's
 * result. `usage` is the refusal of a missing input, `formats` says where the format names are.
 */
export async function sendImport<N extends 'importVulnerabilities' | 'importTestResults'>(
  ctx: ClientContext,
  name: N,
  input: FileImportInput,
  options: ImportOptions | undefined,
  usage: string,
  formats: string,
): Promise<WithResponse<OperationResponse<N>>> {
  if (!input || typeof input !== 'object') throw new TypeError(usage);
  const { format, scope, file } = input;
  if (typeof format !== 'string' || format === '') throw new TypeError(`${usage.split(' ')[0]} needs a format (${formats})`);
  if (scope !== undefined && typeof scope !== 'string') throw new TypeError('scope must be a string');
  const source = await importSource(file);
  const answer = await send(ctx, name, {
    query: { format, ...(scope !== undefined ? { scope } : {}) } as never,
    body: rawBody(source, IMPORT_CONTENT_TYPE),
    options,
    headers: input.respondAsync ? { prefer: 'respond-async' } : undefined,
  });
  if (answer.response.status !== 202) return answer as WithResponse<OperationResponse<N>>;
  const accepted = answer as unknown as WithResponse<ImportVulnerabilitiesAccepted>;
  return followJob<OperationResponse<N>['data']>(ctx, accepted, {
    ...options,
    onStatus: options?.onJobStatus,
    onProgress: options?.onJobProgress,
  }) as Promise<WithResponse<OperationResponse<N>>>;
}

type OperationResponse<N extends 'importVulnerabilities' | 'importTestResults'> = N extends 'importVulnerabilities'
  ? ImportVulnerabilitiesResponse
  : ImportTestResultsResponse;

const FILENAME = 'scan.json';

/** The file of an import (scanner or checker) as the transport sends it. */
async function importSource(file: ImportFile): Promise<FileSource> {
  if (typeof file === 'string') {
    try {
      return await prepareFile({ path: file });
    } catch (err) {
      // The most likely slip: the file's text passed where its path belongs.
      if (/^\s*[[{]/.test(file))
        throw new TypeError('file is a path; pass the contents as bytes (new TextEncoder().encode(text)) or a stream', { cause: err });
      throw err;
    }
  }
  if (file instanceof Uint8Array || file instanceof ArrayBuffer || file instanceof Blob)
    return prepareFile({ data: file, filename: FILENAME });
  if (typeof file === 'function' || file instanceof ReadableStream || isAsyncIterable(file))
    return prepareFile({ stream: file, filename: FILENAME });
  throw new TypeError('file must be a path, bytes (Uint8Array, ArrayBuffer, Blob), a stream or a function returning a stream');
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<Uint8Array> =>
  typeof value === 'object' && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
