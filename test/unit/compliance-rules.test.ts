// The compliance rule (docs/decisions/resources.md), pinned by examples and by a property test against a
// straightforward reading of the rule written independently here.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  artifactKey,
  controlCompliance,
  evidenceState,
  frameworksProgress,
  policyState,
  testState,
  testStatus,
  type ArtifactType,
  type ComplianceGraph,
  type ControlNode,
} from '../../src/domain/compliance/rules.ts';

function graph(entries: Array<[ArtifactType, string, { relevant: boolean; complete: boolean }, string[]]>): ComplianceGraph {
  const g: ComplianceGraph = { artifacts: new Map(), artifactFrameworks: new Map() };
  for (const [type, id, state, frameworks] of entries) {
    g.artifacts.set(artifactKey(type, id), state);
    g.artifactFrameworks.set(artifactKey(type, id), new Set(frameworks));
  }
  return g;
}
const control = (id: string, artifacts: string[], frameworks: string[], scope = 'in_scope'): ControlNode => ({
  id,
  scope,
  frameworkIds: new Set(frameworks),
  artifactKeys: artifacts,
});

describe('artifact states', () => {
  test('a policy is complete only when published; relevance is its flag', () => {
    assert.deepEqual(policyState(true, 'published'), { relevant: true, complete: true });
    for (const s of ['not_uploaded', 'draft', 'needs_attention', 'draft_approved', 'needs_review', 'pending_approval']) {
      assert.equal(policyState(true, s).complete, false, s);
    }
    assert.equal(policyState(false, 'published').relevant, false);
  });
  test('evidence is complete only when uploaded', () => {
    assert.equal(evidenceState(true, 'uploaded').complete, true);
    for (const s of ['not_uploaded', 'needs_attention', 'draft', 'needs_review', 'pending_approval', 'needs_revision']) {
      assert.equal(evidenceState(true, s).complete, false, s);
    }
  });
  test('an ignored test is not relevant; affected is relevant but not passing', () => {
    assert.deepEqual(testState('ignored'), { relevant: false, complete: false });
    assert.deepEqual(testState('affected'), { relevant: true, complete: false });
    assert.deepEqual(testState('fix_required'), { relevant: true, complete: false });
    assert.deepEqual(testState('passing'), { relevant: true, complete: true });
  });
  test('a passing test whose integration fails is reported as affected', () => {
    assert.equal(testStatus('passing', true), 'affected');
    assert.equal(testStatus('passing', false), 'passing');
    assert.equal(testStatus('fix_required', true), 'fix_required');
  });
});

describe('control status', () => {
  const g = graph([
    ['policy', 'p1', { relevant: true, complete: true }, ['F1']],
    ['evidence', 'e1', { relevant: true, complete: false }, ['F2']],
    ['test', 't1', { relevant: true, complete: true }, ['F1', 'F2']],
    ['policy', 'p2', { relevant: false, complete: false }, ['F1']],
  ]);
  const c = control('c', ['policy:p1', 'evidence:e1', 'test:t1', 'policy:p2'], ['F1', 'F2']);

  test('non_compliant when any relevant artifact is incomplete; percentage is floored', () => {
    assert.deepEqual(controlCompliance(c, g), { status: 'non_compliant', percentage: 66, relevant: 3, complete: 2 });
  });
  test('with frameworkIds only artifacts mapped to those frameworks count', () => {
    assert.equal(controlCompliance(c, g, new Set(['F1'])).status, 'compliant');
    assert.equal(controlCompliance(c, g, new Set(['F1'])).percentage, 100);
    assert.equal(controlCompliance(c, g, new Set(['F2'])).status, 'non_compliant');
    assert.equal(controlCompliance(c, g, new Set(['F2'])).percentage, 50);
    assert.equal(controlCompliance(c, g, new Set(['F9'])).status, 'not_applicable');
  });
  test('not_applicable when out of scope, whatever the artifacts', () => {
    const r = controlCompliance({ ...c, scope: 'out_of_scope' }, g);
    assert.equal(r.status, 'not_applicable');
    assert.equal(r.percentage, 'not_applicable');
  });
  test('not_applicable when no artifact is relevant', () => {
    assert.equal(controlCompliance(control('x', ['policy:p2'], ['F1']), g).status, 'not_applicable');
    assert.equal(controlCompliance(control('y', [], ['F1']), g).percentage, 'not_applicable');
  });
});

describe('framework progress', () => {
  test('counts in-scope controls and each relevant artifact once; 0% of nothing', () => {
    const g = graph([
      ['policy', 'p1', { relevant: true, complete: true }, ['F1']],
      ['policy', 'p3', { relevant: true, complete: false }, ['F1']],
      ['evidence', 'e1', { relevant: true, complete: true }, ['F1']],
      ['test', 't1', { relevant: false, complete: false }, ['F1']],
    ]);
    const controls = [
      control('a', ['policy:p1', 'evidence:e1'], ['F1']),
      control('b', ['policy:p1', 'policy:p3'], ['F1']),
      control('c', ['policy:p1'], ['F1'], 'out_of_scope'),
      control('d', [], ['F1']),
    ];
    const p = frameworksProgress(['F1', 'F2'], controls, g);
    assert.deepEqual(p.get('F1'), {
      controls: { compliant: 1, total: 3, percentage: 33 },
      policies: { published: 1, total: 2, percentage: 50 },
      evidence: { uploaded: 1, total: 1, percentage: 100 },
      tests: { passing: 0, total: 0, percentage: 0 },
    });
    assert.deepEqual(p.get('F2')!.controls, { compliant: 0, total: 0, percentage: 0 });
  });
});

// An independent reading of docs/decisions/resources.md "The compliance rule" used as the oracle of the property test.
function oracleStatus(c: ControlNode, g: ComplianceGraph, fw?: Set<string>) {
  const counted = c.artifactKeys
    .filter((k) => g.artifacts.get(k)?.relevant)
    .filter((k) => !fw || [...(g.artifactFrameworks.get(k) ?? [])].some((f) => fw.has(f)));
  const done = counted.filter((k) => g.artifacts.get(k)!.complete);
  if (c.scope === 'out_of_scope' || counted.length === 0) return { status: 'not_applicable', pct: 'not_applicable' as const };
  return { status: done.length === counted.length ? 'compliant' : 'non_compliant', pct: Math.floor((done.length * 100) / counted.length) };
}

const arbWorld = fc
  .record({
    frameworks: fc.uniqueArray(fc.constantFrom('F1', 'F2', 'F3', 'F4'), { minLength: 1 }),
    artifacts: fc.array(
      fc.record({
        type: fc.constantFrom<ArtifactType>('policy', 'evidence', 'test'),
        relevant: fc.boolean(),
        complete: fc.boolean(),
        frameworks: fc.subarray(['F1', 'F2', 'F3', 'F4']),
      }),
      { maxLength: 25 },
    ),
  })
  .chain((w) =>
    fc.record({
      world: fc.constant(w),
      controls: fc.array(
        fc.record({
          scope: fc.constantFrom('in_scope', 'in_scope', 'out_of_scope'),
          artifacts: fc.subarray(w.artifacts.map((_, i) => i)),
          frameworks: fc.subarray(['F1', 'F2', 'F3', 'F4']),
        }),
        { maxLength: 15 },
      ),
      filter: fc.option(fc.subarray(['F1', 'F2', 'F3', 'F4'], { minLength: 1 }), { nil: undefined }),
    }),
  );

test('property: control status, percentage and framework progress follow the rule', () => {
  fc.assert(
    fc.property(arbWorld, ({ world, controls, filter }) => {
      const g = graph(world.artifacts.map((a, i) => [a.type, `a${i}`, { relevant: a.relevant, complete: a.complete }, a.frameworks]));
      const nodes = controls.map((c, i) =>
        control(
          `c${i}`,
          c.artifacts.map((j) => artifactKey(world.artifacts[j].type, `a${j}`)),
          c.frameworks,
          c.scope,
        ),
      );
      const fw = filter ? new Set(filter) : undefined;
      for (const n of nodes) {
        const got = controlCompliance(n, g, fw);
        const want = oracleStatus(n, g, fw);
        assert.equal(got.status, want.status);
        assert.equal(got.percentage, want.pct);
        // 100 always means everything is done
        if (got.percentage === 100) assert.equal(got.status, 'compliant');
      }
      const progress = frameworksProgress(world.frameworks, nodes, g);
      for (const f of world.frameworks) {
        const p = progress.get(f)!;
        const inScope = nodes.filter((n) => n.scope === 'in_scope' && n.frameworkIds.has(f));
        assert.equal(p.controls.total, inScope.length);
        assert.equal(p.controls.compliant, inScope.filter((n) => oracleStatus(n, g, new Set([f])).status === 'compliant').length);
        for (const [type, bucket, key] of [
          ['policy', p.policies, 'published'],
          ['evidence', p.evidence, 'uploaded'],
          ['test', p.tests, 'passing'],
        ] as const) {
          const mapped = world.artifacts.filter((a) => a.type === type && a.relevant && a.frameworks.includes(f));
          const done = mapped.filter((a) => a.complete).length;
          assert.equal(bucket.total, mapped.length);
          assert.equal((bucket as Record<string, number>)[key], done);
          assert.equal(bucket.percentage, mapped.length === 0 ? 0 : Math.floor((100 * done) / mapped.length));
        }
      }
    }),
    { numRuns: 300 },
  );
});
