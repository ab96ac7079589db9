// Every route of the service, one file each; adding an endpoint is adding a line here.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from './deps.ts';
import tokenRoute from './oauth/token.ts';
import listFrameworksRoute from './frameworks/list.ts';
import listControlsRoute from './controls/list.ts';
import getControlRoute from './controls/get.ts';
import updateControlRoute from './controls/update.ts';
import healthRoutes from './ops/health.ts';
import listPoliciesRoute from './policies/list.ts';
import getPolicyRoute from './policies/get.ts';
import policyLifecycleRoutes from './policies/lifecycle.ts';
import listEvidenceRoute from './evidence/list.ts';
import getEvidenceRoute from './evidence/get.ts';
import uploadAttachmentsRoutes from './evidence/upload.ts';
import evidenceReviewRoutes from './evidence/review.ts';
import listTestsRoute from './tests/list.ts';
import getTestRoute from './tests/get.ts';
import recordTestResultRoute from './tests/record-result.ts';
import importTestResultsRoute from './tests/import-results.ts';
import listVulnerabilitiesRoute from './vulnerabilities/list.ts';
import getVulnerabilityRoute from './vulnerabilities/get.ts';
import createVulnerabilityRoute from './vulnerabilities/create.ts';
import updateVulnerabilityRoute from './vulnerabilities/update.ts';
import importVulnerabilitiesRoute from './vulnerabilities/import.ts';
import getJobRoute from './jobs/get.ts';
import listEventsRoute from './events/list.ts';
import getProgramSchemaRoute from './program/schema.ts';
import applyProgramRoute from './program/apply.ts';
import exportProgramRoute from './program/export.ts';
import createSessionRoute from './console/session/create.ts';
import getSessionRoute from './console/session/get.ts';
import deleteSessionRoute from './console/session/delete.ts';
import listConsoleCredentialsRoute from './console/credentials/list.ts';
import createConsoleCredentialRoute from './console/credentials/create.ts';
import revokeConsoleCredentialRoute from './console/credentials/revoke.ts';
import usageRoute from './console/usage/get.ts';
import overviewRoute from './console/overview/get.ts';
import auditLogRoute from './console/audit-log/list.ts';
import listWebhookEndpointsRoute from './console/webhook-endpoints/list.ts';
import createWebhookEndpointRoute from './console/webhook-endpoints/create.ts';
import getWebhookEndpointRoute from './console/webhook-endpoints/get.ts';
import updateWebhookEndpointRoute from './console/webhook-endpoints/update.ts';
import deleteWebhookEndpointRoute from './console/webhook-endpoints/delete.ts';
import rotateWebhookSecretRoute from './console/webhook-endpoints/rotate-secret.ts';
import consolePagesRoute from './console/pages.ts';
import consoleProgramRoute from './console/program/plan-apply.ts';
import listWebhookDeliveriesRoute from './console/webhook-deliveries/list.ts';
import listWebhookDeliveryAttemptsRoute from './console/webhook-deliveries/attempts.ts';
import redeliverWebhookRoute from './console/webhook-deliveries/redeliver.ts';
import sendTestWebhookRoute from './console/webhook-deliveries/send-test.ts';
import homePageRoute from './home/page.ts';
import faviconRoutes from './home/favicon.ts';
import docsRoute from './docs/reference.ts';

const routes = [
  tokenRoute,
  listFrameworksRoute,
  listControlsRoute,
  getControlRoute,
  // an extension: a control's scope and assignees (issue 26)
  updateControlRoute,
  healthRoutes,
  listPoliciesRoute,
  getPolicyRoute,
  // extensions: the policy lifecycle (issue 26)
  policyLifecycleRoutes,
  listEvidenceRoute,
  getEvidenceRoute,
  uploadAttachmentsRoutes,
  // extensions: evidence review (issue 26)
  evidenceReviewRoutes,
  listTestsRoute,
  getTestRoute,
  // an extension: a pushed test result (issue 26)
  recordTestResultRoute,
  // an extension: checkers' reports as test runs (issue 38)
  importTestResultsRoute,
  listVulnerabilitiesRoute,
  getVulnerabilityRoute,
  createVulnerabilityRoute,
  updateVulnerabilityRoute,
  // an extension: scanner imports (issue 27)
  importVulnerabilitiesRoute,
  // an extension: jobs, bulk work followed to its end (issue 36)
  getJobRoute,
  // an extension: the change events feed (issue 15)
  listEventsRoute,
  // an extension: program documents (issue 25)
  getProgramSchemaRoute,
  applyProgramRoute,
  exportProgramRoute,
  // the developer console: its admin API and its pages
  createSessionRoute,
  getSessionRoute,
  deleteSessionRoute,
  listConsoleCredentialsRoute,
  createConsoleCredentialRoute,
  revokeConsoleCredentialRoute,
  usageRoute,
  overviewRoute,
  auditLogRoute,
  listWebhookEndpointsRoute,
  createWebhookEndpointRoute,
  getWebhookEndpointRoute,
  updateWebhookEndpointRoute,
  deleteWebhookEndpointRoute,
  rotateWebhookSecretRoute,
  listWebhookDeliveriesRoute,
  listWebhookDeliveryAttemptsRoute,
  redeliverWebhookRoute,
  sendTestWebhookRoute,
  consoleProgramRoute,
  consolePagesRoute,
  // what a browser finds at the server's address: the landing page, its icon, the API reference
  homePageRoute,
  faviconRoutes,
  docsRoute,
];

export function registerRoutes(app: FastifyInstance, deps: RouteDeps) {
  for (const route of routes) route(app, deps);
}
