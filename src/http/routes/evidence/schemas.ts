// Response shapes of evidence records: the list item and the get shape (defined in the domain).
export { Evidence, EvidenceDetail } from '../../../domain/evidence/schema.ts';
