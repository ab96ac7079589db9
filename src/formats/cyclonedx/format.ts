// CycloneDX BOMs (1.4 and later) with their VEX, as the registry (src/formats/scanners/formats.ts)
// lists them: the mapping is in docs/scanner-formats.md ("CycloneDX (1.4 and later)"), the reading
// in ./parse.ts.
import { describeFormat } from '../scanners/contract.ts';
import { parseCycloneDx } from './parse.ts';

export const cyclonedx = describeFormat({
  name: 'cyclonedx',
  title: 'CycloneDX 1.4+ with VEX',
  label: 'a CycloneDX BOM (1.4 or later)',
  signatures: ['bomFormat', 'specVersion', 'components', 'vulnerabilities', 'serialNumber', 'dependencies'],
  read: parseCycloneDx,
});
