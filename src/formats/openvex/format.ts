// OpenVEX documents, as the registry (src/formats/scanners/formats.ts) lists them: the mapping is in
// docs/scanner-formats.md ("OpenVEX"), the reading in ./parse.ts. Statements about findings, not a
// scan: a document names no scope, and its silence closes nothing.
import { describeFormat } from '../scanners/contract.ts';
import { parseOpenVex } from './parse.ts';

export const openvex = describeFormat({
  name: 'openvex',
  title: 'OpenVEX',
  label: 'an OpenVEX document',
  signatures: ['@context', 'statements'],
  scopeless: true,
  absentCloses: false,
  read: parseOpenVex,
});
