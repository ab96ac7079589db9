// SARIF 2.1.0 logs, as the registry (src/formats/scanners/formats.ts) lists them: the mapping is
// in docs/scanner-formats.md ("SARIF 2.1.0"), the reading in ./parse.ts.
import { describeFormat } from '../scanners/contract.ts';
import { parseSarif } from './parse.ts';

export const sarif = describeFormat({
  name: 'sarif',
  title: 'SARIF 2.1.0',
  label: 'a SARIF 2.1.0 log',
  signatures: ['runs', 'inlineExternalProperties'],
  read: parseSarif,
});
