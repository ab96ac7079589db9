// Response shapes of tests: the list item and the get shape (defined in the domain).
export { TestDetail, TestSummary } from '../../../domain/tests/schema.ts';
