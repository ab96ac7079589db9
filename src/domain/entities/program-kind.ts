// Entities in a program document (issue 25): name only; frameworks, controls and artifacts name
// them by key. Deleting one (prune) unlinks it from every record.
import { namedKind } from '../kinds/named-kind.ts';

export const entitiesKind = namedKind({
  name: 'entities',
  record: 'entity',
  table: 'entities',
  linkedFrom: ['subject_entities', 'entity_id'],
});
