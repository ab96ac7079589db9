// Every route of the service, one file each; adding an endpoint is adding a line here.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from './deps.ts';
import tokenRoute from './oauth/token.ts';
import listFrameworksRoute from './frameworks/list.ts';
import listControlsRoute from './controls/list.ts';
import getControlRoute from './controls/get.ts';
import healthRoutes from './ops/health.ts';
import listPoliciesRoute from './policies/list.ts';
import getPolicyRoute from './policies/get.ts';
import listEvidenceRoute from './evidence/list.ts';
import getEvidenceRoute from './evidence/get.ts';
import uploadAttachmentsRoutes from './evidence/upload.ts';
import listTestsRoute from './tests/list.ts';
import getTestRoute from './tests/get.ts';
import listVulnerabilitiesRoute from './vulnerabilities/list.ts';
import getVulnerabilityRoute from './vulnerabilities/get.ts';
import createVulnerabilityRoute from './vulnerabilities/create.ts';
import updateVulnerabilityRoute from './vulnerabilities/update.ts';
import listEventsRoute from './events/list.ts';
import createSessionRoute from './console/session/create.ts';
import getSessionRoute from './console/session/get.ts';
import deleteSessionRoute from './console/session/delete.ts';
import listConsoleCredentialsRoute from './console/credentials/list.ts';
import createConsoleCredentialRoute from './console/credentials/create.ts';
import revokeConsoleCredentialRoute from './console/credentials/revoke.ts';
import usageRoute from './console/usage/get.ts';
import overviewRoute from './console/overview/get.ts';
import auditLogRoute from './console/audit-log/list.ts';
import consolePagesRoute from './console/pages.ts';
import homePageRoute from './home/page.ts';
import docsRoute from './docs/reference.ts';

const routes = [
  tokenRoute,
  listFrameworksRoute,
  listControlsRoute,
  getControlRoute,
  healthRoutes,
  listPoliciesRoute,
  getPolicyRoute,
  listEvidenceRoute,
  getEvidenceRoute,
  uploadAttachmentsRoutes,
  listTestsRoute,
  getTestRoute,
  listVulnerabilitiesRoute,
  getVulnerabilityRoute,
  createVulnerabilityRoute,
  updateVulnerabilityRoute,
  // an extension: the change events feed (issue 15)
  listEventsRoute,
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
  consolePagesRoute,
  // what a browser finds at the server's address: a page of links, the API reference
  homePageRoute,
  docsRoute,
];

export function registerRoutes(app: FastifyInstance, deps: RouteDeps) {
  for (const route of routes) route(app, deps);
}
