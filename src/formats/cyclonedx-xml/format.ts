// CycloneDX BOMs (1.4 and later) in their XML encoding, with their VEX, as the registry
// (src/formats/scanners/formats.ts) lists them: a format of its own beside `cyclonedx` (JSON),
// mapped by the same code (../cyclonedx/bom.ts); why a name of its own: docs/scanner-formats.md
// ("CycloneDX XML"). The reading is ./parse.ts.
import { describeFormat } from '../scanners/contract.ts';
import { parseCycloneDxXml } from './parse.ts';

export const cyclonedxXml = describeFormat({
  name: 'cyclonedx-xml',
  title: 'CycloneDX 1.4+ XML with VEX',
  label: 'a CycloneDX XML BOM (1.4 or later)',
  // An XML file has no top-level JSON members: a JSON file read as this format is told apart by
  // the other formats' signatures (./parse.ts), an XML file read as another by its first “<”.
  signatures: [],
  opensWith: '<',
  openingWords: 'must start with “<”',
  read: parseCycloneDxXml,
});
