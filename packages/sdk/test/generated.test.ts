// The SDK's types cannot drift from the server: src/generated/api.ts must equal a fresh
// rendering of the server's OpenAPI document, and the generator refuses a document with an API
// operation the SDK does not cover (or one it covers that is gone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { GENERATED_FILE, renderFromServer } from '../scripts/generate.ts';
import { loadServerOpenApi } from '../scripts/load-openapi.ts';
import { OPERATIONS, renderApiModule } from '../scripts/openapi-to-ts.ts';
import { operations } from '../src/generated/api.ts';

test('src/generated/api.ts is what the server schemas generate (run `npm run generate -w packages/sdk` if not)', async () => {
  assert.equal(fs.readFileSync(GENERATED_FILE, 'utf8'), await renderFromServer());
});

test('every API operation of the server has an SDK operation, and no SDK operation lacks a server route', async () => {
  const doc = await loadServerOpenApi();
  const clone = () => structuredClone(doc);

  const added = clone();
  added.paths['/v1/risks'] = { get: structuredClone(doc.paths['/v1/frameworks'].get) };
  assert.throws(() => renderApiModule(added), /GET \/v1\/risks is not covered by the SDK/);

  const removed = clone();
  delete removed.paths['/v1/tests/{testId}'];
  assert.throws(() => renderApiModule(removed), /GET \/v1\/tests\/\{testId\} is in OPERATIONS but the server no longer serves it/);

  const diverged = clone();
  diverged.paths['/v1/evidences'].get.parameters = [];
  assert.throws(() => renderApiModule(diverged), /no longer an exact alias/);

  const newParam = clone();
  newParam.paths['/v1/frameworks'].get.parameters!.push({ in: 'query', name: 'region', schema: { type: 'object' } });
  assert.throws(() => renderApiModule(newParam), /query parameter region/);

  assert.deepEqual(Object.keys(operations).sort(), Object.values(OPERATIONS).sort());
});

test('query parameters get the wire form the server reads', () => {
  assert.equal(operations.listPolicies.query.isRelevant, 'boolean');
  assert.equal(operations.listPolicies.query.nextReviewAtFrom, 'number');
  assert.equal(operations.listControls.query.status, 'list');
  assert.equal(operations.listControls.query.assigneeEmails, 'list');
  assert.equal(operations.listVulnerabilities.query.nextCursor, 'string');
  assert.deepEqual(
    Object.entries(operations)
      .filter(([, o]) => o.idempotent)
      .map(([name]) => name)
      .sort(),
    [
      'applyProgram',
      'approveEvidence',
      'approvePolicy',
      'createVulnerability',
      'importTestResults',
      'importVulnerabilities',
      'publishPolicy',
      'recordTestResult',
      'requestEvidenceRevision',
      'requestPolicyReview',
      'submitPolicy',
      'updateControl',
      'updateEvidence',
      'updatePolicy',
      'updateVulnerability',
      'uploadEvidenceAttachments',
    ],
  );
  assert.deepEqual(operations.importVulnerabilities.query, { format: 'string', scope: 'string' });
  assert.deepEqual(operations.importTestResults.query, { format: 'string', scope: 'string' });
});

test('WebhookPayload: the bodies the document declares under `webhooks`, else the feed event', async () => {
  const doc = await loadServerOpenApi();
  // the server declares every event type and the test event, credential events included
  const served = renderApiModule(doc);
  for (const type of ['vulnerability.created', 'credential.revoked', 'webhook.test']) {
    assert.match(served.slice(served.indexOf('export type WebhookPayload')), new RegExp(`type: "${type.replace('.', '\\.')}";`));
  }
  const undeclared = structuredClone(doc);
  delete undeclared.webhooks;
  assert.match(renderApiModule(undeclared), /export type WebhookPayload = ListEventsResponse\['data'\]\[number\];/);
  const declared = structuredClone(doc);
  const body = (type: string) => ({
    requestBody: {
      content: {
        'application/json': {
          schema: { type: 'object', required: ['type', 'data'], properties: { type: { const: type }, data: { type: 'object' } } },
        },
      },
    },
    responses: { '200': { description: 'received' } },
  });
  declared.webhooks = { 'webhook.test': { post: body('webhook.test') }, 'credential.revoked': { post: body('credential.revoked') } };
  const rendered = renderApiModule(declared);
  assert.match(rendered, /export type WebhookPayload = \{\n\s+type: "webhook\.test";[\s\S]*\} \| \{\n\s+type: "credential\.revoked";/);
  declared.webhooks = { broken: { post: { responses: {} } } };
  assert.throws(() => renderApiModule(declared), /webhook broken: no application\/json request body schema/);
});
