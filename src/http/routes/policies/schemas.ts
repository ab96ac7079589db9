// Response shapes of policies: the list item and the get shape (defined in the domain).
export { Policy, PolicyDetail } from '../../../domain/policies/schema.ts';
