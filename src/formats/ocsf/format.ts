// Prowler's OCSF JSON (`prowler <provider> --output-formats json-ocsf`), as the check-results registry
// (src/formats/checks/formats.ts) lists it: a list of OCSF 1.x Detection Findings (Prowler 4 and
// later; the Security Findings of Prowler 3 read too), one per check and resource. The mapping is
// in docs/check-results.md ("Prowler"), the reading in ./parse.ts.
import { describeCheckFormat } from '../checks/contract.ts';
import { parseOcsf } from './parse.ts';

export const ocsf = describeCheckFormat({
  name: 'ocsf',
  title: 'Prowler OCSF JSON',
  label: 'a Prowler OCSF JSON report (a list of findings)',
  tool: 'prowler',
  opensWith: '[',
  openingWords: 'must be a JSON list',
  read: parseOcsf,
});
