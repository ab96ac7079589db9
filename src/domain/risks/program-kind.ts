// Risks in a program document (issue 25): name only; controls and artifacts name them by key.
// Deleting one (prune) unlinks it from every record.
import { namedKind } from '../kinds/named-kind.ts';

export const risksKind = namedKind({ name: 'risks', record: 'risk', table: 'risks', linkedFrom: ['risk_links', 'risk_id'] });
