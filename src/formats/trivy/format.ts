// Trivy JSON reports (an image's, a repository's, a cluster's; the list of Trivy before 0.20), as the
// registry (src/formats/scanners/formats.ts) lists them: the mapping is in docs/scanner-formats.md
// ("Trivy JSON"), the reading in ./parse.ts.
import { describeFormat } from '../scanners/contract.ts';
import { parseTrivy } from './parse.ts';

export const trivy = describeFormat({
  name: 'trivy',
  title: 'Trivy JSON',
  label: 'a Trivy JSON report',
  signatures: ['SchemaVersion', 'ArtifactName', 'ArtifactType', 'Results', 'ClusterName'],
  // the list Trivy wrote before 0.20 opens with `[`
  opensWith: '{[',
  openingWords: 'must be a JSON object (or, from Trivy before 0.20, a list)',
  read: parseTrivy,
});
