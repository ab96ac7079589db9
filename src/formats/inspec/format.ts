// Chef InSpec's JSON reporter (`inspec exec PROFILE --reporter json`), as the check-results
// registry (src/formats/checks/formats.ts) lists it: the platform checked, its profiles and their
// controls, each with the results of its tests. The mapping is in docs/check-results.md
// ("Chef InSpec"), the reading in ./parse.ts.
import { describeCheckFormat } from '../checks/contract.ts';
import { parseInspec } from './parse.ts';

export const inspec = describeCheckFormat({
  name: 'inspec',
  title: 'Chef InSpec JSON',
  label: 'a Chef InSpec JSON report',
  tool: 'inspec',
  read: parseInspec,
});
