// The public surface of @compliance-data/sdk.
export { ComplianceClient, DEFAULTS, type ClientOptions } from './client.ts';
export { REGIONS, REGION_BASE_URLS, type Region } from './regions.ts';
export {
  ComplianceError,
  ComplianceApiError,
  ValidationError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  RateLimitError,
  InternalServerError,
  ServiceUnavailableError,
  ConnectionError,
  TimeoutError,
  TotalCountMismatchError,
  PaginationError,
  WebhookVerificationError,
  type WebhookVerificationFailure,
  type ApiErrorCode,
  type ErrorDetail,
} from './errors.ts';
export { PagedList, type Page, type PageMeta } from './pagination.ts';
export type { RequestOptions, WriteOptions, WithResponse } from './resources/operation.ts';
export type { RawRequestInput, RawQueryValue } from './resources/raw-request.ts';
export type { ResponseInfo, FetchLike } from './transport/request-sender.ts';
export type { Hooks, RequestEvent, ResponseEvent, RetryEvent, RetryReason } from './transport/hooks.ts';
export { SDK_VERSION } from './version.ts';
export type { StoredToken, TokenStore, TokenStoreOperation, TokenStoreErrorHandler } from './transport/token-cache.ts';
export type { UploadAttachmentsInput } from './resources/evidence.ts';
export type { UploadFile, ByteStream } from './uploads/sources.ts';
export { EventFollower, EventWalk, type EventFeedPage, type EventListQuery, type FollowOptions } from './resources/events.ts';
export { webhooks, type Webhooks } from './webhooks/index.ts';
export type { VerifyWebhookOptions, WebhookBody, WebhookSecret } from './webhooks/verify.ts';
export type { WebhookHeaders } from './webhooks/headers.ts';
export type {
  ImportFile,
  ImportOptions,
  ImportVulnerabilitiesInput,
  VulnerabilityListQuery,
  VulnerabilityPage,
} from './resources/vulnerabilities.ts';
export type { ImportTestResultsInput } from './resources/tests.ts';
export { DEFAULT_JOB_TIMEOUT_MS, type Job, type JobFollowOptions, type JobProgress } from './resources/jobs.ts';
export type { ProgramOptions, ProgramPlan } from './resources/program.ts';
export type * from './types.ts';
export type * from './generated/api.ts';
