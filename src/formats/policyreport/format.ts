// Kubernetes policy reports, as the check-results registry (src/formats/checks/formats.ts) lists
// them: the wgpolicyk8s.io PolicyReport and ClusterPolicyReport that Kyverno writes, the newer
// OpenReports `openreports.io/v1alpha1` Report and ClusterReport, one report or a List of them
// (`kubectl get policyreports -A -o json`). The mapping is in docs/check-results.md ("Kyverno
// and other policy reports"), the reading in ./parse.ts.
import { describeCheckFormat } from '../checks/contract.ts';
import { parsePolicyReport } from './parse.ts';

export const policyreport = describeCheckFormat({
  name: 'policyreport',
  title: 'Kubernetes PolicyReport JSON (wgpolicyk8s.io, openreports.io)',
  label: 'a Kubernetes policy report (PolicyReport, ClusterPolicyReport, Report, ClusterReport or a List of them)',
  tool: 'kyverno',
  read: parsePolicyReport,
});
