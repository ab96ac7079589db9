// The moves through the SDK against the real service on every engine: tests.recordResult and
// controls.update answer what get answers, replay under one idempotencyKey, and raise the typed
// errors (a refused move is a ValidationError naming the field).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError, NotFoundError, ValidationError, type ComplianceClient } from '../src/index.ts';
import { dialects, startDemoService, type DemoService } from './support/real-server.ts';

const hasField = (err: unknown, field: string) =>
  err instanceof ValidationError && err.details.some((d) => 'field' in d && d.field === field);

for (const dialect of dialects) {
  describe(`SDK moves against the service (${dialect})`, () => {
    let svc: DemoService;
    let sdk: ComplianceClient;

    before(async () => {
      svc = await startDemoService(dialect);
      sdk = svc.readWrite;
    });
    after(() => svc.close());

    test('tests.recordResult: the answer is get’s; a replay under the same key; an ignored test is refused naming status', async () => {
      const tests = (await sdk.tests.list()).data;
      const test = tests.find((t) => t.status === 'fix_required' || t.status === 'passing')!;
      const body = {
        status: 'fix_required' as const,
        resources: [{ resourceId: 'sdk-1', name: 'SDK resource', status: 'fix_required' as const }],
      };
      const first = await sdk.tests.recordResult(test.testId, body, { idempotencyKey: `sdk-result-${dialect}` });
      assert.equal(first.response.status, 200);
      assert.equal(first.data.status, 'fix_required');
      assert.deepEqual(first.data, (await sdk.tests.get(test.testId)).data);
      const again = await sdk.tests.recordResult(test.testId, body, { idempotencyKey: `sdk-result-${dialect}` });
      assert.equal(again.response.idempotentReplayed, true);
      await assert.rejects(
        sdk.tests.recordResult(test.testId, { status: 'passing' }, { idempotencyKey: `sdk-result-${dialect}` }),
        ConflictError,
      );
      const ignored = tests.find((t) => t.status === 'ignored');
      if (ignored) await assert.rejects(sdk.tests.recordResult(ignored.testId, { status: 'passing' }), (err) => hasField(err, 'status'));
      await assert.rejects(sdk.tests.recordResult('test_none', { status: 'passing' }), NotFoundError);
    });

    test('controls.update: out of scope needs a reason; the answer is get’s', async () => {
      const control = (await sdk.controls.list({ controlScope: ['in_scope'] })).data[0];
      await assert.rejects(sdk.controls.update(control.controlId, { controlScope: 'out_of_scope' }), (err) =>
        hasField(err, 'outOfScopeReason'),
      );
      const out = await sdk.controls.update(control.controlId, { controlScope: 'out_of_scope', outOfScopeReason: 'Not applicable to us' });
      assert.equal(out.data.status, 'not_applicable');
      assert.deepEqual(out.data, (await sdk.controls.get(control.controlId)).data);
      const back = await sdk.controls.update(control.controlId, { controlScope: 'in_scope' });
      assert.equal(back.data.controlScope, 'in_scope');
      assert.equal(back.data.status, control.status);
    });
  });
}
