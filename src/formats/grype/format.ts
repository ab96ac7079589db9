// Grype JSON reports, as the registry (src/formats/scanners/formats.ts) lists them: the mapping is
// in docs/scanner-formats.md ("Grype JSON"), the reading in ./parse.ts.
import { describeFormat } from '../scanners/contract.ts';
import { parseGrype } from './parse.ts';

export const grype = describeFormat({
  name: 'grype',
  title: 'Grype JSON',
  label: 'a Grype JSON report',
  signatures: ['matches', 'ignoredMatches', 'descriptor', 'distro'],
  read: parseGrype,
});
