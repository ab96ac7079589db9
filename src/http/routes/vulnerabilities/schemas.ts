// Response shapes of vulnerability findings: the list item and the get shape, which create and
// update answer with too (defined in the domain); and the path parameter of one finding.
import { idParams } from '../../schemas/artifacts.ts';

export { VulnerabilityDetail, VulnerabilitySummary } from '../../../domain/vulnerabilities/schema.ts';

export const VulnerabilityIdParams = idParams(
  'vulnerabilityId',
  'The vulnerabilityId exactly as returned (already encoded, e.g. `api%23VUL-0001`); an ID encoded again answers 404. ' +
    'A client that percent-encodes path parameters itself (most generated ones) must be given the decoded ID (`api#VUL-0001`).',
);
