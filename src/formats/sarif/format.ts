// SARIF 2.1.0 logs, as the registry (src/formats/scanners/formats.ts) lists them: the mapping is
// in docs/scanner-formats.md ("SARIF 2.1.0"), the reading in ./parse.ts. Its keys are rules at
// places, which never agree with a package format's, so the scope it takes from a file is its own
// (`alpine:3.10 (sarif)`): Trivy's SARIF and JSON of one image do not close each other's findings.
import { describeFormat } from '../scanners/contract.ts';
import { parseSarif } from './parse.ts';

export const sarif = describeFormat({
  name: 'sarif',
  title: 'SARIF 2.1.0',
  label: 'a SARIF 2.1.0 log',
  signatures: ['runs', 'inlineExternalProperties'],
  ownScope: true,
  read: parseSarif,
});
