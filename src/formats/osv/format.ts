// OSV-Scanner JSON reports, as the registry (src/formats/scanners/formats.ts) lists them: the
// mapping is in docs/scanner-formats.md ("OSV-Scanner JSON"), the reading in ./parse.ts. The file
// never names what was scanned, so its findings need not wait for a scope.
import { describeFormat } from '../scanners/contract.ts';
import { parseOsv } from './parse.ts';

export const osv = describeFormat({
  name: 'osv',
  title: 'OSV-Scanner JSON',
  label: 'an OSV-Scanner JSON report',
  signatures: ['results', 'experimental_config'],
  scopeless: true,
  read: parseOsv,
});
