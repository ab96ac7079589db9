// client.program against the real service on every engine (docs/sdk.md, "Program documents"):
// plan, apply and export, with a document given as an object or as YAML text; a refused document
// is a ValidationError whose details carry the JSON pointer, line and column.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PermissionDeniedError, ValidationError, type ComplianceClient } from '../src/index.ts';
import { dialects, startDemoService, type DemoService } from './support/real-server.ts';

const YAML = `version: 1
frameworks:
  - key: sdk-framework
    name: SDK Framework
    requirements:
      - key: r1
        code: R-1
        name: First requirement
`;

for (const dialect of dialects) {
  describe(`SDK program documents against the service (${dialect})`, () => {
    let svc: DemoService;
    let sdk: ComplianceClient;

    before(async () => {
      svc = await startDemoService(dialect);
      sdk = svc.readWrite;
    });
    after(() => svc.close());

    test('plan YAML text changes nothing; apply does; applying again changes nothing', async () => {
      const plan = await sdk.program.plan(YAML);
      assert.equal(plan.data.changed, true);
      assert.equal(plan.data.counts.frameworks.created, 1);
      assert.equal(
        (await sdk.frameworks.list()).data.some((f) => f.frameworkName === 'SDK Framework'),
        false,
      );
      const applied = await sdk.program.apply(YAML);
      assert.equal(applied.data.changed, true);
      assert.equal(applied.response.status, 200);
      assert.ok(applied.response.idempotencyKey);
      assert.equal(
        (await sdk.frameworks.list()).data.some((f) => f.frameworkName === 'SDK Framework'),
        true,
      );
      const again = await sdk.program.apply({
        version: 1,
        frameworks: [
          { key: 'sdk-framework', name: 'SDK Framework', requirements: [{ key: 'r1', code: 'R-1', name: 'First requirement' }] },
        ],
      });
      assert.equal(again.data.changed, false);
    });

    test('export as an object and as YAML text', async () => {
      const doc = await sdk.program.export();
      assert.equal(doc.data.version, 1);
      assert.ok(doc.data.frameworks?.some((f) => f.key === 'sdk-framework'));
      const text = await sdk.program.export({ format: 'yaml' });
      assert.match(text, /^# yaml-language-server: \$schema=/);
      assert.match(text, /key: sdk-framework/);
    });

    test('a refused document is a ValidationError naming the pointer, line and column', async () => {
      await assert.rejects(sdk.program.plan('version: 1\nframeworks:\n  - key: x\n    nme: X\n    requirements: []\n'), (err: unknown) => {
        assert.ok(err instanceof ValidationError);
        const detail = err.details.find((d) => 'field' in d && d.field === '/frameworks/0/nme') as { line?: number; column?: number };
        assert.ok(detail, JSON.stringify(err.details));
        assert.equal(detail.line, 4);
        assert.equal(detail.column, 5);
        return true;
      });
    });

    test('a read-only credential cannot plan a document', async () => {
      await assert.rejects(svc.readOnly.program.plan(YAML), PermissionDeniedError);
    });

    test('the JSON Schema', async () => {
      const schema = await sdk.program.schema();
      assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
    });
  });
}
