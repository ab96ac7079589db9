// Response shape of frameworks: the list item (defined in the domain).
export { Framework } from '../../../domain/frameworks/schema.ts';
