// Generated checkers' reports, for bench/check-results-import.ts: a Prowler OCSF JSON list (as
// `prowler aws --output-formats json-ocsf` writes it, each finding one check on one resource) and a
// Kubernetes ClusterPolicyReport (as Kyverno writes it), written to disk a chunk at a time.
import fs from 'node:fs';

function writer(file: string) {
  const out = fs.createWriteStream(file);
  const write = (text: string) => (out.write(text) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  const end = () => new Promise<number>((r) => out.end(() => r(fs.statSync(file).size)));
  return { write, end };
}

/** `checks` × `resources` findings: every tenth resource fails its check. The check IDs are `bench_check_<i>`. */
export async function writeProwler(file: string, checks: number, resources: number, time: number): Promise<number> {
  const { write, end } = writer(file);
  await write('[');
  let first = true;
  for (let c = 0; c < checks; c++) {
    for (let r = 0; r < resources; r++) {
      const fail = r % 10 === 0;
      const finding = {
        message: `Bucket bench-${r} ${fail ? 'is not' : 'is'} compliant with bench_check_${c}.`,
        metadata: {
          event_code: `bench_check_${c}`,
          product: { name: 'Prowler', uid: 'prowler', vendor_name: 'Prowler', version: '5.4.0' },
          version: '1.4.0',
        },
        severity_id: 3,
        severity: 'Medium',
        status: 'New',
        status_code: fail ? 'FAIL' : 'PASS',
        status_detail: `Bucket bench-${r} ${fail ? 'is not' : 'is'} compliant with bench_check_${c}.`,
        finding_info: { uid: `prowler-aws-bench_check_${c}-123456789012-eu-west-1-bench-${r}`, title: `Bench check ${c}` },
        resources: [
          { region: 'eu-west-1', group: { name: 's3' }, name: `bench-${r}`, type: 'AwsS3Bucket', uid: `arn:aws:s3:::bench-${r}` },
        ],
        class_uid: 2004,
        cloud: { account: { uid: '123456789012', type: 'AWS Account' }, provider: 'aws', region: 'eu-west-1' },
        time: Math.floor(time / 1000),
        time_dt: new Date(time).toISOString(),
      };
      await write(`${first ? '' : ','}${JSON.stringify(finding)}`);
      first = false;
    }
  }
  await write(']');
  return end();
}

/** One ClusterPolicyReport of one rule on `count` pods: every twentieth fails. */
export async function writePolicyReport(file: string, count: number, time: number): Promise<number> {
  const { write, end } = writer(file);
  await write('{"apiVersion":"wgpolicyk8s.io/v1alpha2","kind":"ClusterPolicyReport","metadata":{"name":"bench"},"results":[');
  for (let i = 0; i < count; i++) {
    const fail = i % 20 === 0;
    const result = {
      policy: 'bench-require-labels',
      rule: 'check-for-labels',
      result: fail ? 'fail' : 'pass',
      message: fail ? 'validation error: the label `team` is required' : "validation rule 'check-for-labels' passed.",
      source: 'kyverno',
      scored: true,
      timestamp: { seconds: Math.floor(time / 1000), nanos: 0 },
      resources: [{ apiVersion: 'v1', kind: 'Pod', namespace: `ns-${i % 50}`, name: `pod-${i}`, uid: `uid-${i}` }],
    };
    await write(`${i > 0 ? ',' : ''}${JSON.stringify(result)}`);
  }
  await write('],"summary":{}}');
  return end();
}
