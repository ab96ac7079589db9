// kube-bench's JSON (`kube-bench run --json`), as the check-results registry
// (src/formats/checks/formats.ts) lists it: `Controls` (each a CIS benchmark section for a node
// type) with their groups of tests, or one such control alone as older releases wrote it. The
// mapping is in docs/check-results.md ("kube-bench"), the reading in ./parse.ts.
import { describeCheckFormat } from '../checks/contract.ts';
import { parseKubeBench } from './parse.ts';

export const kubeBench = describeCheckFormat({
  name: 'kube-bench',
  title: 'kube-bench JSON',
  label: 'a kube-bench JSON report',
  tool: 'kube-bench',
  read: parseKubeBench,
});
