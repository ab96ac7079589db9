// Names for the resources, taken from the generated operation types so they follow the server.
import type {
  ErrorBody,
  GetControlResponse,
  GetEvidenceResponse,
  GetPolicyResponse,
  GetTestResponse,
  GetVulnerabilityResponse,
  ImportTestResultsResponse,
  ImportVulnerabilitiesResponse,
  ListControlsResponse,
  ListEvidenceResponse,
  ListFrameworksResponse,
  ListPoliciesResponse,
  ListTestsResponse,
  ListEventsResponse,
  ListVulnerabilitiesResponse,
  UploadEvidenceAttachmentsResponse,
  WebhookPayload,
} from './generated/api.ts';

export type Framework = ListFrameworksResponse['data'][number];
/** a control as the list returns it */
export type ControlSummary = ListControlsResponse['data'][number];
/** a control as get returns it */
export type Control = GetControlResponse['data'];
export type PolicySummary = ListPoliciesResponse['data'][number];
export type Policy = GetPolicyResponse['data'];
export type EvidenceSummary = ListEvidenceResponse['data'][number];
export type EvidenceRecord = GetEvidenceResponse['data'];
export type TestSummary = ListTestsResponse['data'][number];
export type Test = GetTestResponse['data'];
export type VulnerabilitySummary = ListVulnerabilitiesResponse['data'][number];
/** a finding as get, create and update return it */
export type Vulnerability = GetVulnerabilityResponse['data'];
export type UploadResult = UploadEvidenceAttachmentsResponse['data'];
/** what a scanner import did (`vulnerabilities.import`): counts and the IDs of the findings it changed */
export type ImportResult = ImportVulnerabilitiesResponse['data'];
/** the scanner formats an import reads: the enum of the answer's `format` in the service's document (docs/scanner-formats.md) */
export type ScannerFormat = ImportResult['format'];
/** what a checker's report import did (POST /v1/tests/results/imports; docs/check-results.md) */
export type TestResultsImport = ImportTestResultsResponse['data'];
/** the check-results formats an import reads: the enum of the answer's `format` in the service's document */
export type CheckFormat = TestResultsImport['format'];
export type ErrorResponseBody = ErrorBody;
/** a change event of the feed (GET /v1/events); narrow on `type` for its `data` */
export type ChangeEvent = ListEventsResponse['data'][number];
export type ChangeEventType = ChangeEvent['type'];
/** a webhook request's body, as webhooks.verify returns it; narrow on `type` for its `data` */
export type WebhookEvent = WebhookPayload;
