// Checkov's JSON (`checkov -d . -o json`), as the check-results registry (src/formats/checks/formats.ts)
// lists it: one framework's report (an object), or a list of them when several frameworks ran. The
// mapping is in docs/check-results.md ("Checkov"), the reading in ./parse.ts.
import { describeCheckFormat } from '../checks/contract.ts';
import { parseCheckov } from './parse.ts';

export const checkov = describeCheckFormat({
  name: 'checkov',
  title: 'Checkov JSON',
  label: 'a Checkov JSON report',
  tool: 'checkov',
  opensWith: '{[',
  openingWords: 'must be a JSON object (or a list of them, one per framework)',
  read: parseCheckov,
});
